/* parse.h - pass 1: the recursive-descent parser from tokens to a
 * struct stapfile.  Errors are reported through diag and parsing
 * resumes at the next top-level item.
 */
#ifndef TAPIR_PARSE_H
#define TAPIR_PARSE_H

#include "ast.h"

/* Parse a file (user script when !tapset).  Never returns NULL. */
struct stapfile *parse_file(struct session *s, struct srcfile *src,
			    bool tapset);
/* Load the .stpm macro files on the tapset path (once per session). */
void parse_load_macro_files(struct session *s);

/* A script of the user's (the script, an -E script) that declares
 * nothing is an error, as in SystemTap: reported here.
 */
void parse_check_user_file(struct session *s, const struct stapfile *f);

#endif
