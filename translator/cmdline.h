/* cmdline.h - the stap command line: options from $SYSTEMTAP_DIR/rc and
 * argv into struct stap_options, their validation, --help and -V.
 */
#ifndef TAPIR_CMDLINE_H
#define TAPIR_CMDLINE_H

#include <stdio.h>

#include "session.h"

/* What cmdline_parse tells the driver to do next. */
enum {
	CMDLINE_OK = 0,		/* go on with the passes */
	CMDLINE_USAGE = 1,	/* usage error, already reported: exit 1 */
	CMDLINE_DONE = 2,	/* --help or -V printed: exit 0 */
};

/* Parse the rc file words and then argv into s->opt.  Strings point
 * into argv or s->arena; argv itself is not reordered.  Nothing is
 * printed on success.  -v counts into opt.verbose and into every
 * opt.pass_verbose[i]; --vp adds its digits to pass_verbose only.
 * -l/-L/--dump-* need no script; with -l, -L and --dump-functions
 * warnings are off, and -L and --dump-functions imply -u, as in the
 * established tool.
 */
int cmdline_parse(struct session *s, int argc, char **argv);

/* A --remote URL taken apart: NULL, or why it is not one.  Strings
 * come from the arena; user and port are NULL when not given.
 */
struct remote_url {
	bool direct;		/* direct:// */
	const char *user;
	const char *host;
	const char *port;
};
const char *cmdline_remote_url(struct arena *a, const char *url,
			       struct remote_url *u);

/* The --help text (stdout) and the -V text. */
void cmdline_usage(FILE *out);
void cmdline_version(FILE *out);

#endif
