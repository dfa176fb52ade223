/* usyms.h - pass 3: the symbol tables of user-space objects that a
 * module carries for usymname(), usymdata() and the user stacks: every
 * program and library of the session's process probes, the objects of
 * -d, and with --ldd the libraries each of them needs.
 */
#ifndef TAPIR_USYMS_H
#define TAPIR_USYMS_H

struct session;
struct strbuf;

/* Write the tables (runtime/stp_usym.h) into out: stp_uobjs[] and room
 * for their inodes, stp_uobj_inodes[]; nothing when the session names
 * no user object.  Objects that cannot be opened are left out.  Returns
 * how many objects stp_uobjs[] has.
 */
int usyms_emit(struct session *s, struct strbuf *out);

#endif
