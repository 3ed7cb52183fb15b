/* SPDX-License-Identifier: MIT */
/* Launcher tests: commrun's options, --help, usage errors, arguments left alone, multi-program jobs, spec files, names. */
#define _GNU_SOURCE     /* sched_getaffinity, CPU_* */
#include <sched.h>

#include "../pipeline/lc_run.h"
#include "lc_config.h"

TestSuite(launcher, .timeout = 60 * LC_T_SLOWDOWN);

/*
 * Every option commrun has, written here by hand on purpose: --help must
 * list exactly these, each with a description, and the parser must know
 * each of them.  An option added to commrun fails this test until it is
 * added here too, with its help text checked.
 */
static const struct {
	const char *name;       /* long form, without "--" */
	char letter;            /* short form, 0: none */
	int arg;                /* takes an argument */
} lc_t_options[] = {
	{ "nodes", 'n', 1 },
	{ "spec", 0, 1 },
	{ "per-node", 0, 1 },
	{ "map", 0, 1 },
	{ "network", 0, 1 },
	{ "routes", 0, 0 },
	{ "stats", 0, 0 },
	{ "faults", 0, 1 },
	{ "group", 0, 1 },
	{ "timeout", 0, 1 },
	{ "bind", 0, 1 },
	{ "show-job", 0, 0 },
	{ "help", 'h', 0 },
};
#define LC_T_NOPTS ((int)(sizeof lc_t_options / sizeof lc_t_options[0]))

/* commrun ARGS... (NULL-terminated), output and status in *o. */
static void lc_t_crun(struct lc_t_out *o, ...)
{
	char crun[512];
	char *argv[32];
	int a = 0;
	va_list ap;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	argv[a++] = crun;
	va_start(ap, o);
	for (char *s; (s = va_arg(ap, char *)) != NULL && a < 31;)
		argv[a++] = s;
	va_end(ap);
	argv[a] = NULL;
	lc_t_exec_alarm(o, argv, NULL, 50);
}

/* The line of text holding `at`, copied into line. */
static void lc_t_line_of(const struct lc_t_out *o, const char *at, char *line, size_t cap)
{
	const char *b = at, *e = strchr(at, '\n');

	while (b > o->text && b[-1] != '\n')
		b--;
	if (!e)
		e = o->text + o->len;
	snprintf(line, cap, "%.*s", (int)(e - b), b);
}

/* The lines node i wrote, in order, without their "[i] " prefix. */
static void lc_t_node_lines(const struct lc_t_out *o, int node, char *out, size_t cap)
{
	char pfx[16];
	size_t plen = (size_t)snprintf(pfx, sizeof pfx, "[%d] ", node), n = 0;

	out[0] = '\0';
	for (const char *l = o->text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) + 1 : strlen(l);

		if (strncmp(l, pfx, plen) == 0 && n + len - plen < cap) {
			memcpy(out + n, l + plen, len - plen);
			n += len - plen;
			out[n] = '\0';
		}
	}
}

/* A usage error: exit status 2, the message, then the usage line and the pointer to --help. */
static void lc_t_expect_usage_error(const struct lc_t_out *o, const char *msg)
{
	cr_assert_eq(o->status, 2, "exit %d, expected 2 (usage error); output:\n%s", o->status, o->text);
	cr_assert(strstr(o->text, msg), "missing \"%s\"; output:\n%s", msg, o->text);
	cr_assert(strstr(o->text, "usage: commrun "), "no usage line; output:\n%s", o->text);
	cr_assert(strstr(o->text, "commrun --help"), "no hint at --help; output:\n%s", o->text);
}

Test(launcher, help_lists_every_option_with_its_description)
{
	static const char *const forms[] = { "--help", "-h" };

	for (int f = 0; f < 2; f++) {
		struct lc_t_out o;
		int listed = 0;

		lc_t_crun(&o, forms[f], NULL);
		cr_assert_eq(o.status, 0, "%s: exit %d; output:\n%s", forms[f], o.status, o.text);
		cr_assert(strncmp(o.text, "usage: commrun ", 15) == 0, "output:\n%s", o.text);
		for (int i = 0; i < LC_T_NOPTS; i++) {
			char want[64], line[512];
			const char *at, *p;

			if (lc_t_options[i].letter)
				snprintf(want, sizeof want, "  -%c, --%s", lc_t_options[i].letter,
					 lc_t_options[i].name);
			else
				snprintf(want, sizeof want, "      --%s", lc_t_options[i].name);
			at = strstr(o.text, want);
			cr_assert(at, "%s does not list --%s (\"%s\"); output:\n%s", forms[f],
				  lc_t_options[i].name, want, o.text);
			lc_t_line_of(&o, at, line, sizeof line);
			/* the label, its argument's name if any, a gap, then the description */
			p = line + strlen(want);
			if (lc_t_options[i].arg) {
				cr_assert(p[0] == ' ' && p[1] >= 'A' && p[1] <= 'Z',
					  "--%s takes an argument, its help line names none: \"%s\"",
					  lc_t_options[i].name, line);
				for (p++; *p > ' '; p++)
					;
			}
			cr_assert(p[0] == ' ' && p[1] == ' ', "\"%s\"", line);
			p += strspn(p, " ");
			cr_assert(strlen(p) >= 10, "--%s has no description: \"%s\"", lc_t_options[i].name,
				  line);
		}
		/* no option beyond those above: a line of the list is indented and starts with '-' */
		for (const char *l = o.text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (l[0] == ' ' && l[strspn(l, " ")] == '-')
				listed++;
		cr_assert_eq(listed, LC_T_NOPTS, "--help lists %d options, this test knows %d: a new "
			     "option needs its row in lc_t_options; output:\n%s", listed, LC_T_NOPTS,
			     o.text);
		lc_t_out_free(&o);
	}
}

/* Each option of the list is one the parser knows: never "unknown option" or "ambiguous". */
Test(launcher, the_parser_knows_every_option_of_the_help)
{
	for (int i = 0; i < LC_T_NOPTS; i++) {
		struct lc_t_out o;
		char opt[64];

		snprintf(opt, sizeof opt, "--%s", lc_t_options[i].name);
		lc_t_crun(&o, opt, NULL);
		cr_assert(!strstr(o.text, "unknown option") && !strstr(o.text, "ambiguous"),
			  "%s is refused; output:\n%s", opt, o.text);
		/* alone on the command line, only --help is a complete one */
		cr_assert_eq(o.status, strcmp(lc_t_options[i].name, "help") == 0 ? 0 : 2,
			     "%s: exit %d; output:\n%s", opt, o.status, o.text);
		lc_t_out_free(&o);
	}
}

/* Options commrun does not have, or uses wrongly: exit 2, naming the option. */
Test(launcher, unknown_option_is_a_usage_error_naming_it)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} rows[] = {
		{ { "-n", "2", "--frobnicate", "/bin/true" }, "unknown option '--frobnicate'" },
		{ { "--frobnicate=3", "-n", "2", "/bin/true" }, "unknown option '--frobnicate=3'" },
		{ { "-n", "2", "-x", "/bin/true" }, "unknown option '-x'" },
		{ { "-n", "2", "--stats=yes", "/bin/true" }, "option '--stats' takes no argument" },
		{ { "-n", "2", "--s", "/bin/true" }, "ambiguous option '--s': --spec, --stats, --show-job" },
	};

	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		struct lc_t_out o;

		lc_t_crun(&o, rows[r].args[0], rows[r].args[1], rows[r].args[2], rows[r].args[3], NULL);
		lc_t_expect_usage_error(&o, rows[r].msg);
		cr_assert(!strstr(o.text, "[0] "), "a node ran; output:\n%s", o.text);
		lc_t_out_free(&o);
	}
}

/* An option whose argument is missing at the end of the command line: exit 2, saying what it needs. */
Test(launcher, missing_argument_is_a_usage_error)
{
	static const struct {
		const char *args[3];
		const char *msg;
	} rows[] = {
		{ { "-n" }, "commrun: -n needs a number of nodes" },
		{ { "--nodes" }, "commrun: --nodes needs a number of nodes" },
		{ { "-n", "2", "--faults" }, "commrun: --faults: needs a fault spec" },
		{ { "-n", "2", "--group" }, "commrun: --group needs a list of nodes" },
		{ { "-n", "2", "--timeout" }, "commrun: --timeout needs a positive number of seconds" },
		{ { "-n", "2", "--per-node" }, "commrun: --per-node needs a number of processes per NIC" },
		{ { "-n", "2", "--network" }, "commrun: --network needs a network spec" },
	};

	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		struct lc_t_out o;

		lc_t_crun(&o, rows[r].args[0], rows[r].args[1], rows[r].args[2], NULL);
		lc_t_expect_usage_error(&o, rows[r].msg);
		lc_t_out_free(&o);
	}
}

/*
 * Options end at PROG: what follows is the program's, even when it looks
 * like commrun's options (--stats, -n 3, --, --help), with or without a
 * "--" before PROG.  Two nodes: configs with static groups refuse one.
 */
Test(launcher, program_arguments_that_look_like_options_are_passed_untouched)
{
	static const char want[] = "<--stats>\n<-n>\n<3>\n<-->\n<--help>\n<-h>\n<--timeout>\n";

	for (int dd = 0; dd < 2; dd++) {
		struct lc_t_out o;
		char got[256];

		if (dd)
			lc_t_crun(&o, "--show-job", "-n", "2", "--", "/bin/sh", "-c",
				  "printf '<%s>\\n' \"$@\"", "sh", "--stats", "-n", "3", "--", "--help",
				  "-h", "--timeout", NULL);
		else
			lc_t_crun(&o, "--show-job", "-n", "2", "/bin/sh", "-c",
				  "printf '<%s>\\n' \"$@\"", "sh", "--stats", "-n", "3", "--", "--help",
				  "-h", "--timeout", NULL);
		cr_assert_eq(o.status, 0, "exit %d; output:\n%s", o.status, o.text);
		for (int i = 0; i < 2; i++) {
			lc_t_node_lines(&o, i, got, sizeof got);
			cr_assert_str_eq(got, want, "node %d: the program's arguments changed; output:\n%s",
					 i, o.text);
		}
		/* two nodes, not three, and commrun itself took no --stats */
		cr_assert(!strstr(o.text, "[2] ") && !strstr(o.text, "# commrun --stats"),
			  "output:\n%s", o.text);
		cr_assert(o.job[0] == '/' && !lc_t_seg_exists(o.job), "output:\n%s", o.text);
		lc_t_out_free(&o);
	}
}

/* The node count in each of its spellings. */
Test(launcher, node_count_short_attached_long_and_long_with_equals)
{
	static const char *const forms[][2] = {
		{ "-n", "2" }, { "-n2", NULL }, { "--nodes", "2" }, { "--nodes=2", NULL },
	};

	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		struct lc_t_out o;

		if (forms[f][1])
			lc_t_crun(&o, forms[f][0], forms[f][1], "/bin/sh", "-c", "echo node $LC_NODE of $LC_NODES",
				  NULL);
		else
			lc_t_crun(&o, forms[f][0], "/bin/sh", "-c", "echo node $LC_NODE of $LC_NODES", NULL);
		cr_assert_eq(o.status, 0, "%s: exit %d; output:\n%s", forms[f][0], o.status, o.text);
		cr_assert(strstr(o.text, "[0] node 0 of 2\n") && strstr(o.text, "[1] node 1 of 2\n"),
			  "%s; output:\n%s", forms[f][0], o.text);
		lc_t_out_free(&o);
	}
}

/* ---- multi-program jobs, specification files, the name service ---- */

/* commrun --show-job --timeout 30 ARGS...: no segment left, not timed out. */
static void lc_t_job(struct lc_t_out *o, char **args)
{
	char crun[512];
	char *argv[40] = { crun, "--show-job", "--timeout", "30" };
	int a = 4;

	lc_t_path(crun, sizeof crun, "bin/commrun");
	for (; *args && a < 39; args++)
		argv[a++] = *args;
	argv[a] = NULL;
	lc_t_exec(o, argv, NULL);
	cr_assert_neq(o->status, 124, "the job hung; output:\n%s", o->text);
	if (o->job[0])
		cr_assert(!lc_t_seg_exists(o->job), "segment %s left behind", o->job);
}

/* Node i's line is exactly want. */
static void lc_t_expect_node_line(const struct lc_t_out *o, int node, const char *want)
{
	char lines[1024];

	lc_t_node_lines(o, node, lines, sizeof lines);
	cr_assert_str_eq(lines, want, "node %d; output:\n%s", node, o->text);
}

Test(launcher, programs_separated_by_colons_share_one_job_numbered_in_order)
{
	struct lc_t_out o;
	char p[512];

	lc_t_path(p, sizeof p, "tests/progs/jobprog");
	char *args[] = { "-n", "1", p, "argv", "a", ":", "-n", "2", p, "argv", "b", "c d", ":",
			 "-n1", p, "argv", "8:8", ":", "--nodes=1", p, "argv", "e", NULL };
	lc_t_job(&o, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_expect_node_line(&o, 0, "jobprog ok: node 0 of 5 argv: argv a\n");
	lc_t_expect_node_line(&o, 1, "jobprog ok: node 1 of 5 argv: argv b c d\n");
	lc_t_expect_node_line(&o, 2, "jobprog ok: node 2 of 5 argv: argv b c d\n");
	/* a word with a colon in it is an argument, only a lone ':' separates */
	lc_t_expect_node_line(&o, 3, "jobprog ok: node 3 of 5 argv: argv 8:8\n");
	lc_t_expect_node_line(&o, 4, "jobprog ok: node 4 of 5 argv: argv e\n");
	lc_t_out_free(&o);
}

Test(launcher, colon_without_a_node_count_or_program_is_a_usage_error)
{
	static const struct {
		const char *args[8];
		const char *msg;
	} rows[] = {
		{ { "-n", "1", "/bin/true", ":", "/bin/true" }, "program 2: ':' must be followed by -n N" },
		{ { "-n", "1", "/bin/true", ":" }, "program 2: ':' must be followed by -n N" },
		{ { "-n", "1", "/bin/true", ":", "-n", "0", "/bin/true" }, "program 2: bad node count '0'" },
		{ { "-n", "1", "/bin/true", ":", "-n", "1" }, "program 2: missing the program to run" },
		{ { "-n", "200", "/bin/true", ":", "-n", "100", "/bin/true" }, "300 nodes in all: at most 256" },
		{ { "-n", "1", "" }, "program 1: the program's name is empty" },
		{ { "-n", "1", "/bin/true", ":", "-n", "1", "" }, "program 2: the program's name is empty" },
	};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		struct lc_t_out o;
		char *args[10];
		size_t a = 0;

		for (; a < 8 && rows[r].args[a]; a++)
			args[a] = (char *)rows[r].args[a];
		args[a] = NULL;
		lc_t_job(&o, args);
		lc_t_expect_usage_error(&o, rows[r].msg);
		cr_assert_eq(o.job[0], '\0', "a job was started; output:\n%s", o.text);
		lc_t_out_free(&o);
	}
}

/* A scratch directory with jobprog linked in as ./jp and a spec file of text; its path in file. */
static void lc_t_spec_dir(char *dir, size_t dcap, char *file, size_t fcap, const char *text)
{
	char prog[512], link[600];
	FILE *f;

	lc_t_path(prog, sizeof prog, "tests/progs/jobprog");
	snprintf(dir, dcap, "/tmp/lc_t_spec.%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(link, sizeof link, "%s/jp", dir);
	unlink(link);
	cr_assert_eq(symlink(prog, link), 0, "symlink %s: %s", link, strerror(errno));
	snprintf(file, fcap, "%s/job.spec", dir);
	f = fopen(file, "w");
	cr_assert(f, "%s: %s", file, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void lc_t_spec_clean(const char *dir, const char *file)
{
	char link[600];

	snprintf(link, sizeof link, "%s/jp", dir);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

/* A file commrun reads (--spec, --map) and the error it must give for it, after "<file>:". */
struct lc_t_bad_file {
	const char *text;
	const char *msg;
};

/*
 * commrun args (args[file_at] set to each row's file of text): a usage error
 * naming the file and the row's message, no job started, no node run.
 */
static void lc_t_bad_files(const struct lc_t_bad_file *rows, size_t n, char **args, int file_at)
{
	for (size_t r = 0; r < n; r++) {
		char dir[128], file[160], want[256];
		struct lc_t_out o;

		lc_t_spec_dir(dir, sizeof dir, file, sizeof file, rows[r].text);
		args[file_at] = file;
		lc_t_job(&o, args);
		lc_t_spec_clean(dir, file);
		snprintf(want, sizeof want, "commrun: %s:%s", file, rows[r].msg);
		cr_assert_eq(o.status, 2, "row %zu: exit %d; output:\n%s", r, o.status, o.text);
		cr_assert(strstr(o.text, want), "row %zu: missing \"%s\"; output:\n%s", r, want, o.text);
		cr_assert_eq(o.job[0], '\0', "row %zu: a job was started; output:\n%s", r, o.text);
		cr_assert_null(strstr(o.text, "jobprog"), "row %zu: a node ran; output:\n%s", r, o.text);
		lc_t_out_free(&o);
	}
}

Test(launcher, spec_file_places_each_program_on_its_node)
{
	char dir[128], file[160], cwd_spec[200];
	struct lc_t_out o;

	setenv("LC_T_SPEC_WORD", "from-env", 1);
	lc_t_spec_dir(dir, sizeof dir, file, sizeof file,
		      "# a comment line, then the nodes out of order\n"
		      "2 ./jp argv \"two words\" $LC_T_SPEC_WORD   # a trailing comment\n"
		      "\n"
		      "   0   ./jp   argv zero 'a#b' \\#c\n"
		      "1 ./jp argv one\n");
	/* from another directory: ./jp is found beside the file */
	cr_assert_eq(chdir("/"), 0);
	snprintf(cwd_spec, sizeof cwd_spec, "%s", file);
	char *args[] = { "--spec", cwd_spec, NULL };
	lc_t_job(&o, args);
	lc_t_spec_clean(dir, file);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_expect_node_line(&o, 0, "jobprog ok: node 0 of 3 argv: argv zero a#b #c\n");
	lc_t_expect_node_line(&o, 1, "jobprog ok: node 1 of 3 argv: argv one\n");
	lc_t_expect_node_line(&o, 2, "jobprog ok: node 2 of 3 argv: argv two words from-env\n");
	lc_t_out_free(&o);
}

/* Every mistake in a spec file names the file and line, and starts nothing. */
Test(launcher, spec_file_errors_name_file_and_line_and_start_nothing)
{
	static const struct lc_t_bad_file rows[] = {
		{ "0 ./jp argv\n# c\n0 ./jp argv\n", "3: node 0 again (first at line 1)" },
		{ "0 ./jp argv\n2 ./jp argv\n", "2: node 2, but the file has 2 processes (nodes 0..1): node 1 has no line" },
		{ "x ./jp argv\n", "1: expected 'NODE PROGRAM [ARGS...]' with NODE 0..255, got 'x ./jp argv'" },
		{ "\n0\n", "2: expected 'NODE PROGRAM [ARGS...]'" },
		{ "-1 ./jp\n", "1: expected 'NODE PROGRAM [ARGS...]'" },
		{ "0 ./jp 'unbalanced\n", "1: syntax error (an unbalanced quote?)" },
		{ "0 ./jp argv\n1 ./missing\n", "2: program './missing' (" },
		{ "0 ./jp $LC_T_NOT_SET_ANYWHERE\n", "1: a variable that is not set" },
		{ "0 ./jp a | b\n", "1: a character among | & ; < > ( ) { } needs quoting" },
		{ "0 ./jp $(touch /tmp/lc_t_never)\n", "1: command substitution is not allowed" },
		{ "# nothing but a comment\n\n", " no process" },
		{ "0 ./jp argv\n1 \"\" argv\n", "2: the program's name is empty" },
		{ "0 ./jp $(())\n", "1: arithmetic expansion ($((...)), $[...]) is not allowed" },
		{ "0 ./jp \"$[]\"\n", "1: arithmetic expansion ($((...)), $[...]) is not allowed" },
	};
	char *spec[] = { "--spec", NULL, NULL };

	lc_t_bad_files(rows, sizeof rows / sizeof rows[0], spec, 1);
	cr_assert_neq(access("/tmp/lc_t_never", F_OK), 0, "a spec file ran a command");
	/* and the command line: --spec names every process */
	struct lc_t_out o;
	char *args[] = { "--spec", "/nonexistent.spec", NULL };
	lc_t_job(&o, args);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.text, "--spec /nonexistent.spec: No such file"), "output:\n%s", o.text);
	lc_t_out_free(&o);
	char *args2[] = { "--spec", "x.spec", "-n", "2", NULL };
	lc_t_job(&o, args2);
	lc_t_expect_usage_error(&o, "names every process: no -n N and no program with it");
	lc_t_out_free(&o);
}

/* Lookup blocks until another program registers the name, then reaches it. */
Test(launcher, lookup_waits_for_the_registration_of_another_program)
{
	struct lc_t_out o;
	char p[512];

	lc_t_path(p, sizeof p, "tests/progs/jobprog");
	/* the server registers 300 ms late: the askers wait, then their messages reach it */
	char *args[] = { "-n", "2", p, "ask", "sink", ":", "-n", "1", p, "serve", "sink", "300", "2",
			 NULL };
	lc_t_job(&o, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_expect_node_line(&o, 0, "jobprog ok: sink at node 2 port 102\n");
	lc_t_expect_node_line(&o, 1, "jobprog ok: sink at node 2 port 102\n");
	cr_assert_eq(lc_t_count(&o, "jobprog ok: served sink: hello from "), 2, "output:\n%s", o.text);
	lc_t_out_free(&o);
}

Test(launcher, lookup_times_out_or_fails_when_no_one_is_left)
{
	struct lc_t_out o;
	char p[512];

	lc_t_path(p, sizeof p, "tests/progs/jobprog");
	/* node 2 keeps the job alive until both have timed out and reached it */
	char *args[] = { "-n", "2", p, "ask", "nobody", "100000", "holder", ":", "-n", "1", p, "serve",
			 "holder", "0", "2", NULL };
	lc_t_job(&o, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	for (int i = 0; i < 2; i++)
		lc_t_expect_node_line(&o, i, "jobprog ok: lookup nobody: LC_ERR_TIMEOUT: lc_name_lookup: "
				      "\"nobody\" was not registered within 100000 us\n"
				      "jobprog ok: holder at node 2 port 102\n");
	lc_t_out_free(&o);
	/* waiting for ever ends when every other node has left: no one can register it */
	char *args2[] = { "-n", "1", p, "ask", "never", ":", "-n", "2", p, "leave", NULL };
	lc_t_job(&o, args2);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_expect_node_line(&o, 0, "jobprog ok: lookup never: LC_ERR_PEER_DEAD: lc_name_lookup: "
			      "\"never\" is not registered and every other node of the job has exited or died\n");
	lc_t_out_free(&o);
}

Test(launcher, a_name_has_one_holder_in_the_job)
{
	struct lc_t_out o;
	char p[512];

	lc_t_path(p, sizeof p, "tests/progs/jobprog");
	char *args[] = { "-n", "1", p, "claim", "x", ":", "-n", "2", p, "claim", "x", NULL };
	lc_t_job(&o, args);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_expect_node_line(&o, 0, "jobprog ok: claim x: LC_OK: \n");
	for (int i = 1; i < 3; i++)
		lc_t_expect_node_line(&o, i, "jobprog ok: claim x: LC_ERR_BUSY: lc_name_register: \"x\" "
				      "is registered already, by node 0\n");
	lc_t_out_free(&o);
}

/* --bind core: node i on the i-th core commrun may use, alone; more nodes than cores: unbound, said. */
Test(launcher, bind_core_pins_each_node_to_a_core_of_its_own)
{
	struct lc_t_out o;
	char line[256], want[256], seen[CPU_SETSIZE] = { 0 };
	cpu_set_t allowed;
	char *script = "echo core=${LC_CORE:-none}; taskset -pc $$ | sed 's/.*: /cpus=/'";

	cr_assert_eq(sched_getaffinity(0, sizeof allowed, &allowed), 0);
	int ncpu = CPU_COUNT(&allowed);
	if (ncpu < 2)
		cr_skip_test("needs two cores to bind two nodes (this process may use %d)", ncpu);
	char n[16];
	snprintf(n, sizeof n, "%d", ncpu);
	lc_t_crun(&o, "--bind", "core", "-n", n, "sh", "-c", script, NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	for (int i = 0; i < ncpu; i++) {
		int core = -1;
		lc_t_node_lines(&o, i, line, sizeof line);
		cr_assert_eq(sscanf(line, "core=%d", &core), 1, "node %d: %s", i, line);
		cr_assert(core >= 0 && core < CPU_SETSIZE && CPU_ISSET(core, &allowed) && !seen[core],
			  "node %d on core %d: not one of ours, or shared; output:\n%s", i, core, o.text);
		seen[core] = 1;
		snprintf(want, sizeof want, "core=%d\ncpus=%d\n", core, core);
		cr_assert_str_eq(line, want, "node %d is not pinned to its core alone", i);
	}
	lc_t_out_free(&o);
	/* one node more than cores: nobody is bound, and commrun says why */
	snprintf(n, sizeof n, "%d", ncpu + 1);
	lc_t_crun(&o, "--bind", "core", "-n", n, "sh", "-c", "echo core=${LC_CORE:-none}", NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "nodes not bound (oversubscribed)"), "output:\n%s", o.text);
	for (int i = 0; i <= ncpu; i++) {
		lc_t_node_lines(&o, i, line, sizeof line);
		cr_assert_str_eq(line, "core=none\n", "node %d bound though oversubscribed", i);
	}
	lc_t_out_free(&o);
	/* --bind none and a bad value */
	lc_t_crun(&o, "--bind", "none", "-n", "2", "sh", "-c", "echo core=${LC_CORE:-none}", NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	lc_t_node_lines(&o, 1, line, sizeof line);
	cr_assert_str_eq(line, "core=none\n");
	lc_t_out_free(&o);
	lc_t_crun(&o, "--bind", "socket", "-n", "2", "true", NULL);
	cr_assert_eq(o.status, 2, "exit %d, expected 2 (usage error); output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "--bind needs 'core' or 'none'"), "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/*
 * --per-node K: K processes per NIC, each node told (LC_PER_NIC); a bad K or
 * more per NIC than nodes is refused before anything starts.
 */
Test(launcher, per_node_puts_k_processes_on_each_nic)
{
	struct lc_t_out o;
	char line[64];

	lc_t_crun(&o, "--per-node", "2", "-n", "4", "sh", "-c", "echo per_nic=$LC_PER_NIC", NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	for (int i = 0; i < 4; i++) {
		lc_t_node_lines(&o, i, line, sizeof line);
		cr_assert_str_eq(line, "per_nic=2\n", "node %d", i);
	}
	lc_t_out_free(&o);
	lc_t_crun(&o, "--per-node", "0", "-n", "2", "true", NULL);
	cr_assert_eq(o.status, 2, "exit %d, expected 2 (usage error); output:\n%s", o.status, o.text);
	cr_assert(strstr(o.text, "commrun: --per-node needs a number of processes per NIC"), "output:\n%s",
		  o.text);
	lc_t_out_free(&o);
	lc_t_crun(&o, "--per-node", "3", "-n", "2", "true", NULL);
	cr_assert_neq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "--per-node 3: more processes per NIC than the job's 2 nodes"),
		  "output:\n%s", o.text);
	lc_t_out_free(&o);
}

/*
 * --map plugs each NIC into a slot of the network: --routes shows the routes
 * it gives, a job runs on them (its port table names the NIC behind each
 * port), and a bad placement file is a usage error naming its file and line,
 * with nothing started.
 */
/*
 * commrun --network: the job runs on other switches (and, in a timed build, other links)
 * than its config's; every node attaches with the same geometry (the segment checks it) and
 * the port table counts the switches.  A bad spec ends commrun (exit 2) naming key and reason.
 */
Test(launcher, network_option_changes_the_switches_and_refuses_bad_specs)
{
	static const struct {
		const char *spec;
		const char *msg;
	} rows[] = {
		{ "ports=4", "--network ports=4: unknown key 'ports' (the network's keys: switch_ports link_mbps hop_ns)" },
		{ "switch_ports=1", "switch_ports = 1: not in 2..256" },
		{ "switch_ports=x", "switch_ports: 'x' is not a number" },
		{ "switch_ports=4,", "" },
		{ "switch_ports=", "switch_ports: '' is not a number" },
		{ "hop_ns=-1", "hop_ns: '-1' is not a number" },
		{ "switch_ports=4,hop_ns", "'hop_ns' is not KEY=VALUE" },
		{ "link_mbps=2000000", "link_mbps = 2000000: not in 0..1000000" },
#if !LC_NET_TIMED
		{ "link_mbps=100", "link_mbps = 100: this build's network is untimed" },
		{ "hop_ns=5", "hop_ns = 5: this build's network is untimed" },
#endif
	};
	char pp[512];
	struct lc_t_out o;

	lc_t_crun(&o, "-n", "7", "--network", "switch_ports=4", "--routes", NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "4 switches of 4 ports") && strstr(o.text, "\n0 2 1 0.2\n") &&
		  strstr(o.text, "\n0 3 3 0.3 3.1 1.0\n"), "two levels of 4-port switches; output:\n%s", o.text);
	lc_t_out_free(&o);
	lc_t_crun(&o, "-n", "13", "--network", "switch_ports=4", "--routes", NULL);
	cr_assert_eq(o.status, 2, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "commrun: --network switch_ports=4: 13 NICs do not fit two levels of "
			 "4-port switches (at most 12)"), "output:\n%s", o.text);
	lc_t_out_free(&o);
	/* a job on it: 4 NICs on 3-port switches, two leaves and a root */
	lc_t_path(pp, sizeof pp, "bin/pingpong");
	char *job[] = { "--network", "switch_ports=3", "--stats", "-n", "4", pp, "-s", "8:8", "-i", "10", NULL };
	lc_t_job(&o, job);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "3 switches of 3 ports"), "the port table counts the job's switches; "
		  "output:\n%s", o.text);
	lc_t_out_free(&o);
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		lc_t_crun(&o, "-n", "2", "--network", rows[r].spec, "true", NULL);
		if (!rows[r].msg[0]) {  /* a trailing comma is allowed */
			cr_assert_eq(o.status, 0, "--network %s: output:\n%s", rows[r].spec, o.text);
		} else {
			cr_assert_eq(o.status, 2, "--network %s: exit %d; output:\n%s", rows[r].spec, o.status,
				     o.text);
			cr_assert(strstr(o.text, rows[r].msg), "--network %s: missing \"%s\"; output:\n%s",
				  rows[r].spec, rows[r].msg, o.text);
		}
		lc_t_out_free(&o);
	}
}

Test(launcher, map_places_nics_and_a_bad_file_names_its_line)
{
	static const struct lc_t_bad_file rows[] = {
		{ "0 1 x\n", "1: 'x' is not a slot number" },
		{ "0\n1\n2\n", "3: more slots than NICs: the job's 2 NICs fill slots 0-1, one per NIC" },
		{ "0 5\n", "1: slot out of range: the job's 2 NICs fill slots 0-1" },
		{ "0 -1\n", "1: slot out of range" },
		{ "0\n", " 1 slot for the job's 2 NICs" },
		{ "# only a comment\n", " 0 slots for the job's 2 NICs" },
		{ "1 1\n", " NIC 1 in slot 1, which another NIC has" },
	};
	char dir[128], file[160], text[256], pp[512];
	char *bad[] = { "--map", NULL, "-n", "2", "true", NULL };
	struct lc_t_out o;
	size_t at = 0;

	/* 20 NICs on 16-port switches: leaf 0 has slots 0-14; NICs 1 and 19 swap slots */
	for (int i = 0; i < 20; i++)
		at += (size_t)snprintf(text + at, sizeof text - at, "%d%s", i == 1 ? 19 : i == 19 ? 1 : i,
				       i % 5 == 4 ? "  # five a line\n" : " ");
	lc_t_spec_dir(dir, sizeof dir, file, sizeof file, text);
	lc_t_crun(&o, "-n", "20", "--routes", NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "\n0 1 1 0.1\n") && strstr(o.text, "\n0 19 3 0.15 "), "output:\n%s", o.text);
	lc_t_out_free(&o);
	lc_t_crun(&o, "-n", "20", "--map", file, "--routes", NULL);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "\n0 19 1 0.1\n"), "NIC 19 is in slot 1; output:\n%s", o.text);
	cr_assert(strstr(o.text, "\n0 1 3 0.15 "), "NIC 1 is in slot 19, on leaf 1; output:\n%s", o.text);
	lc_t_out_free(&o);
	lc_t_crun(&o, "-n", "20", "--routes", "true", NULL);
	lc_t_expect_usage_error(&o, "--routes prints the routes and runs nothing");
	lc_t_out_free(&o);
	lc_t_spec_clean(dir, file);

	/* a job on a placement: NIC 0 in slot 1, NIC 1 in slot 0 */
	lc_t_spec_dir(dir, sizeof dir, file, sizeof file, "1 0\n");
	lc_t_path(pp, sizeof pp, "bin/pingpong");
	char *job[] = { "--map", file, "--stats", "-n", "2", pp, "-s", "8:8", "-i", "10", NULL };
	lc_t_job(&o, job);
	lc_t_spec_clean(dir, file);
	cr_assert_eq(o.status, 0, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "\n0.0       NIC 1 (node 1)") && strstr(o.text, "\n0.1       NIC 0 (node 0)"),
		  "the port table names the placed NICs; output:\n%s", o.text);
	lc_t_out_free(&o);

	lc_t_bad_files(rows, sizeof rows / sizeof rows[0], bad, 1);
	char *none[] = { "--map", "/nonexistent.map", "-n", "2", "true", NULL };
	lc_t_job(&o, none);
	cr_assert_eq(o.status, 2, "output:\n%s", o.text);
	cr_assert(strstr(o.text, "--map /nonexistent.map: No such file"), "output:\n%s", o.text);
	lc_t_out_free(&o);
}
