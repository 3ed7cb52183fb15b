m4_dnl SPDX-License-Identifier: MIT
m4_dnl Read before every template (m4 -P): quotes [[ ]] so C's ` and ' survive, C comments
m4_dnl copied verbatim; LC_NAME / LC_UNAME (-D) name the new protocol.
m4_changequote(`[[', `]]')m4_dnl
m4_changecom([[/*]], [[*/]])m4_dnl
m4_dnl LC_COMMENT(text): a one-line C comment whose text may use LC_NAME (expanded before
m4_dnl the comment is formed; text inside a literal comment is never expanded).
m4_define([[LC_COMMENT]], [[/* $1 */]])m4_dnl
