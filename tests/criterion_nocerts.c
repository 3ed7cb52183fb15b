/* SPDX-License-Identifier: MIT */
/* Linked into every Criterion suite: Criterion's libgit2 does not parse the system's CA bundle in each test's process. */

/*
 * Criterion runs each test in a process of its own, a fresh exec of the
 * suite (BoxFort).  Debian's libcriterion needs libgit2 (for its string
 * diffs), built with mbedTLS, whose initialisation loads the CA bundle
 * its build names (/etc/ssl/certs/ca-certificates.crt) at every start:
 * callgrind of an empty suite's start counts 53.6 M of its 65.0 M
 * instructions in mbedtls_x509_crt_parse_file, and a test's process cost
 * 26 ms of CPU with it, 19-20 ms without (40 empty tests, 1.05 against
 * 0.78 CPU-s) -- about 40 CPU-s of the ~6 000 Criterion tests of a
 * `scons test`.  No test opens a TLS connection.  This definition, found
 * in the program before libmbedx509's (libgit2 calls it through its PLT),
 * answers as if the file could not be read (MBEDTLS_ERR_X509_FILE_IO_ERROR):
 * libgit2 then starts without default certificates, as it does on a
 * machine without the bundle.
 */
int mbedtls_x509_crt_parse_file(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return -0x2900;
}
