/* SPDX-License-Identifier: MIT */
/* Fuzz target: the text of a config file through the generator (gen/main.lua, run in-process in Lua 5.4). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

/*
 * Fed: the input is the text of configs/fuzz.lua.  Each input gets a fresh
 * directory /tmp/lc_fz_config.XXXXXX holding configs/ (every shipped
 * configs/<name>.lua linked in, so `extends = "baseline"` resolves as in
 * the repository, and the input as fuzz.lua); the generator runs there in a
 * lua_State of its own, as SConstruct runs it:
 *     gen/main.lua --configs-dir configs --config configs/fuzz.lua
 *                  --out out --json out/config.json
 * with os.exit raising an error the harness catches (the exit status),
 * io.stderr captured, and an allocator capped at LC_FZ_MEM_CAP (a config
 * that builds huge strings meets a Lua memory error, not the machine's
 * limit).
 *
 * Oracle, one of:
 *   exit 0  nothing on stderr, and out/ holds exactly the generated headers
 *           and config.json, each complete (banner, include guard opened and
 *           closed; JSON one object);
 *   exit 1  every line of stderr is a diagnostic "configs/<file>.lua:<line>:
 *           <key>: <reason>" (the config or a config it extends), and out/
 *           does not exist: nothing was written.
 * Anything else is a finding and abort()s: an error escaping the generator
 * (a Lua error in gen/, a traceback, a memory error outside the config's
 * own code), another exit status, a diagnostic without file and line, a
 * partial or missing output.
 *
 * Coverage: the Lua library is not instrumented, so a line hook turns the
 * generator's own lines (gen/<file>.lua, each pair of consecutive lines as an
 * edge) into libFuzzer's extra counters: the fuzzer sees which checks of
 * the generator an input reaches.
 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LC_FZ_MEM_CAP ((size_t)256 << 20)

/* The generator's line edges, counted for libFuzzer (its extra counters; an array elsewhere). */
#define LC_FZ_LUA_EDGES (1u << 16)
__attribute__((section("__libfuzzer_extra_counters"), used))
static uint8_t lc_fz_lua_cov[LC_FZ_LUA_EDGES];

/* What the generator writes into --out, besides --json's config.json. */
static const char *const lc_fz_headers[] = {
	"lc_config.h", "lc_protocols.h", "lc_frame_hdr.h", "lc_proto_state.h",
	"lc_composite_host.h", "lc_composite_nic.h", "lc_composite_launcher.h",
	"lc_coop.h", "lc_proto_stats.h", "lc_proto_api.h",
};
#define LC_FZ_NHEADERS (sizeof lc_fz_headers / sizeof lc_fz_headers[0])

static struct {
	size_t used;            /* bytes the lua_State holds */
	char *err;              /* what the generator wrote on io.stderr */
	size_t err_len, err_cap;
	int exit_code;          /* os.exit's status, -1: not called */
	int back;               /* the directory to return to */
	char dir[64];           /* this input's directory */
	const char *input;      /* the input, for the report of a finding */
	size_t input_len;
	uint32_t prev_line;     /* the line hook's previous line (hashed) */
	struct {                /* the line hook's hash of a chunk's source name; 0: not gen/ */
		const char *src;
		uint32_t hash;
	} src_cache[64];
} fz;

static int lc_fz_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* A finding: say what, show the input and the generator's stderr, and abort. */
static void lc_fz_finding(const char *fmt, const char *arg)
{
	if (fz.back >= 0 && fchdir(fz.back) != 0)
		perror("fchdir");
	fprintf(stderr, "fuzz_config: FINDING: ");
	fprintf(stderr, fmt, arg ? arg : "");
	fprintf(stderr, "\n--- input (%zu bytes) ---\n%.*s\n--- generator's stderr ---\n%.*s---\n",
		fz.input_len, (int)(fz.input_len > 4096 ? 4096 : fz.input_len), fz.input,
		(int)fz.err_len, fz.err ? fz.err : "");
	nftw(fz.dir, lc_fz_rm, 16, FTW_DEPTH | FTW_PHYS);      /* the input is in the report */
	abort();
}

static void *lc_fz_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	if (!ptr)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		fz.used -= osize;
		return NULL;
	}
	if (nsize > osize && fz.used - osize + nsize > LC_FZ_MEM_CAP)
		return NULL;    /* Lua raises a memory error */
	void *p = realloc(ptr, nsize);
	if (p)
		fz.used = fz.used - osize + nsize;
	return p;
}

/* io.stderr:write(...): append to fz.err. */
static int lc_fz_write(lua_State *L)
{
	int n = lua_gettop(L);
	for (int i = 2; i <= n; i++) {
		size_t len;
		const char *s = luaL_checklstring(L, i, &len);
		if (fz.err_len + len + 1 > fz.err_cap) {
			size_t cap = (fz.err_len + len + 1) * 2;
			char *p = realloc(fz.err, cap);
			if (!p)
				return luaL_error(L, "out of memory");
			fz.err = p;
			fz.err_cap = cap;
		}
		memcpy(fz.err + fz.err_len, s, len);
		fz.err_len += len;
		fz.err[fz.err_len] = '\0';
	}
	lua_settop(L, 1);
	return 1;
}

/* The key of the error os.exit raises: its address. */
static const char lc_fz_exit_key = 0;

/* os.exit([code]): note the status, unwind to the harness. */
static int lc_fz_exit(lua_State *L)
{
	if (lua_isboolean(L, 1))
		fz.exit_code = lua_toboolean(L, 1) ? 0 : 1;
	else
		fz.exit_code = (int)luaL_optinteger(L, 1, 0);
	lua_pushlightuserdata(L, (void *)&lc_fz_exit_key);
	return lua_error(L);
}

/* print(...) (--print, --help): not used by these arguments; swallowed. */
static int lc_fz_print(lua_State *L)
{
	(void)L;
	return 0;
}

/* Line hook: count the edge (previous line, this line) of the generator's files. */
static void lc_fz_line(lua_State *L, lua_Debug *ar)
{
	static const char gen[] = "@" LC_FUZZ_ROOT "/gen/";

	if (!lua_getinfo(L, "S", ar))
		return;
	size_t slot = ((uintptr_t)ar->source >> 4) % (sizeof fz.src_cache / sizeof fz.src_cache[0]);
	if (fz.src_cache[slot].src != ar->source) {
		uint32_t h = 2166136261u;
		if (strncmp(ar->source, gen, sizeof gen - 1) == 0)
			for (const char *c = ar->source; *c; c++)
				h = (h ^ (uint8_t)*c) * 16777619u;
		else
			h = 0;
		fz.src_cache[slot].src = ar->source;
		fz.src_cache[slot].hash = h;
	}
	uint32_t h = fz.src_cache[slot].hash;
	if (!h)
		return;
	uint32_t cur = (h ^ ((uint32_t)ar->currentline * 2654435761u)) & (LC_FZ_LUA_EDGES - 1);
	uint8_t *c = &lc_fz_lua_cov[cur ^ fz.prev_line];
	if (*c != 255)
		(*c)++;
	fz.prev_line = cur >> 1;
}

/* Message handler: os.exit's key passes; any other error gets its traceback. */
static int lc_fz_msgh(lua_State *L)
{
	if (lua_touserdata(L, 1) == &lc_fz_exit_key)
		return 1;
	const char *msg = lua_tostring(L, 1);
	luaL_traceback(L, L, msg ? msg : luaL_typename(L, 1), 1);
	return 1;
}

/* Is s (len bytes) one diagnostic line "configs/<name>.lua:<digits>: <text>"? */
static int lc_fz_diag_ok(const char *s, size_t len)
{
	const char *end = s + len, *p = s;

	if (len < 8 || strncmp(p, "configs/", 8) != 0)
		return 0;
	p += 8;
	const char *name = p;
	while (p < end && *p != ':' && *p != '/' && *p != '\n')
		p++;
	if (p - name < 5 || strncmp(p - 4, ".lua", 4) != 0 || p == end || *p != ':')
		return 0;
	p++;
	const char *digits = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == digits || *digits == '0' || end - p < 3 || p[0] != ':' || p[1] != ' ' || p[2] == ' ')
		return 0;
	return 1;
}

/* Does text (a generated header named file) have its banner and its include guard? */
static int lc_fz_header_ok(const char *file, const char *text, size_t len)
{
	char guard[96], open[256], close[160];
	size_t g = 0;

	g += (size_t)snprintf(guard, sizeof guard, "LC_GEN_");
	for (const char *c = file; *c && g + 1 < sizeof guard; c++)
		guard[g++] = (*c >= 'a' && *c <= 'z') ? (char)(*c - 'a' + 'A') :
			     ((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) ? *c : '_';
	guard[g] = '\0';
	snprintf(open, sizeof open, "\n#ifndef %s\n#define %s\n", guard, guard);
	snprintf(close, sizeof close, "\n#endif /* %s */\n", guard);
	return len > strlen(close) && strlen(text) == len &&
	       strncmp(text, "/* SPDX-License-Identifier: MIT */\n", 35) == 0 &&
	       strstr(text, " * Generated by gen/main.lua for config 'fuzz'") && strstr(text, open) &&
	       strcmp(text + len - strlen(close), close) == 0;
}

/* The whole of file path (NUL-terminated), or NULL. */
static char *lc_fz_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = (n + 4096 + 1) * 2);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* After exit 0: out/ holds the complete outputs and nothing else. */
static void lc_fz_check_outputs(void)
{
	DIR *d = opendir("out");
	struct dirent *e;
	size_t files = 0;

	if (!d)
		lc_fz_finding("exit 0 but no output directory", NULL);
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			files++;
	}
	closedir(d);
	if (files != LC_FZ_NHEADERS + 1)
		lc_fz_finding("exit 0 but out/ does not hold exactly the generated files", NULL);
	for (size_t i = 0; i <= LC_FZ_NHEADERS; i++) {
		char path[128];
		size_t len = 0;
		int json = i == LC_FZ_NHEADERS;
		const char *name = json ? "config.json" : lc_fz_headers[i];

		snprintf(path, sizeof path, "out/%s", name);
		char *text = lc_fz_slurp(path, &len);
		if (!text)
			lc_fz_finding("exit 0 but %s is missing", name);
		int ok = json ? len > 3 && text[0] == '{' && strcmp(text + len - 2, "}\n") == 0 &&
				     strlen(text) == len
			      : lc_fz_header_ok(name, text, len);
		free(text);
		if (!ok)
			lc_fz_finding("exit 0 but %s is incomplete", name);
	}
}

/* The input's directory: configs/ with the shipped configs linked in and the input as fuzz.lua. */
static int lc_fz_setup(const uint8_t *data, size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	DIR *d;
	struct dirent *e;

	snprintf(fz.dir, sizeof fz.dir, "/tmp/lc_fz_config.XXXXXX");
	if (!mkdtemp(fz.dir))
		return -1;
	snprintf(path, sizeof path, "%s/configs", fz.dir);
	if (mkdir(path, 0700) != 0 || !(d = opendir(LC_FUZZ_ROOT "/configs")))
		return -1;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".lua") != 0)
			continue;
		snprintf(target, sizeof target, "%s/configs/%s", LC_FUZZ_ROOT, e->d_name);
		snprintf(path, sizeof path, "%s/configs/%s", fz.dir, e->d_name);
		if (symlink(target, path) != 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	snprintf(path, sizeof path, "%s/configs/fuzz.lua", fz.dir);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Run gen/main.lua with argv in a fresh lua_State: 0 it exited (fz.exit_code), -1 an error escaped. */
static int lc_fz_run_gen(const char *const *argv, int argc)
{
	lua_State *L = lua_newstate(lc_fz_alloc, NULL);
	int rc;

	if (!L)
		lc_fz_finding("cannot create a lua_State", NULL);
	luaL_openlibs(L);
	/* os.exit raises; io.stderr is ours; print is swallowed */
	lua_getglobal(L, "os");
	lua_pushcfunction(L, lc_fz_exit);
	lua_setfield(L, -2, "exit");
	lua_pop(L, 1);
	lua_getglobal(L, "io");
	lua_newtable(L);
	lua_pushcfunction(L, lc_fz_write);
	lua_setfield(L, -2, "write");
	lua_setfield(L, -2, "stderr");
	lua_pop(L, 1);
	lua_pushcfunction(L, lc_fz_print);
	lua_setglobal(L, "print");
	lua_createtable(L, argc, 1);
	lua_pushstring(L, LC_FUZZ_ROOT "/gen/main.lua");
	lua_rawseti(L, -2, 0);
	for (int i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setglobal(L, "arg");

	memset(fz.src_cache, 0, sizeof fz.src_cache);   /* the sources of the last state are gone */
	fz.prev_line = 0;
	lua_sethook(L, lc_fz_line, LUA_MASKLINE, 0);
	lua_pushcfunction(L, lc_fz_msgh);
	if (luaL_loadfile(L, LC_FUZZ_ROOT "/gen/main.lua") != LUA_OK)
		lc_fz_finding("gen/main.lua does not load: %s", lua_tostring(L, -1));
	fz.exit_code = -1;
	rc = lua_pcall(L, 0, 0, 1);
	if (rc != LUA_OK && lua_touserdata(L, -1) != &lc_fz_exit_key) {
		/* an error escaped the generator: keep its text past lua_close */
		const char *msg = lua_tostring(L, -1);
		size_t n = strlen(msg ? msg : "");
		char *copy = malloc(n + 1);
		if (copy)
			memcpy(copy, msg ? msg : "", n + 1);
		lua_close(L);
		lc_fz_finding("an error escaped the generator: %s", copy ? copy : "?");
	}
	if (rc == LUA_OK)
		fz.exit_code = 0;       /* the chunk ended without os.exit */
	lua_close(L);
	if (fz.used != 0)
		lc_fz_finding("the lua_State kept memory after lua_close", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const argv[] = {
		"--configs-dir", "configs", "--config", "configs/fuzz.lua",
		"--out", "out", "--json", "out/config.json",
	};

	/*
	 * libFuzzer's timer (SIGALRM, -timeout) must not interrupt the generator's
	 * reads of its pipes (io.popen: Lua's io raises "Interrupted system call"):
	 * its handler stays, with SA_RESTART.
	 */
	struct sigaction sa;
	if (sigaction(SIGALRM, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL &&
	    sa.sa_handler != SIG_IGN && !(sa.sa_flags & SA_RESTART)) {
		sa.sa_flags |= SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
	}
	fz.input = (const char *)data;
	fz.input_len = size;
	fz.err_len = 0;
	if (fz.err)
		fz.err[0] = '\0';
	fz.back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fz.back < 0 || lc_fz_setup(data, size) != 0 || chdir(fz.dir) != 0) {
		perror("fuzz_config: setting up the input's directory");
		abort();
	}
	lc_fz_run_gen(argv, (int)(sizeof argv / sizeof argv[0]));

	if (fz.exit_code == 0) {
		if (fz.err_len)
			lc_fz_finding("exit 0 with something on stderr", NULL);
		lc_fz_check_outputs();
	} else if (fz.exit_code == 1) {
		struct stat sb;
		if (fz.err_len == 0 || fz.err[fz.err_len - 1] != '\n')
			lc_fz_finding("exit 1 without a diagnostic line", NULL);
		for (const char *p = fz.err, *nl; p < fz.err + fz.err_len; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(fz.err + fz.err_len - p));
			if (!lc_fz_diag_ok(p, (size_t)(nl - p)))
				lc_fz_finding("a diagnostic without configs/<file>.lua:<line>: (see stderr)",
					      NULL);
		}
		if (lstat("out", &sb) == 0)
			lc_fz_finding("exit 1 but out/ was written", NULL);
	} else {
		char code[32];
		snprintf(code, sizeof code, "%d", fz.exit_code);
		lc_fz_finding("exit status %s (0: generated, 1: diagnostic)", code);
	}

	if (fchdir(fz.back) != 0 || nftw(fz.dir, lc_fz_rm, 16, FTW_DEPTH | FTW_PHYS) != 0) {
		perror("fuzz_config: removing the input's directory");
		abort();
	}
	close(fz.back);
	fz.back = -1;
	return 0;
}
