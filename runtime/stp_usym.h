/* stp_usym.h - symbols of user-space objects (programs and libraries
 * that are probed or named with -d/--ldd), as tables the translator
 * writes into the module, and the user call chain of the current task.
 */
#ifndef STP_USYM_H
#define STP_USYM_H

struct stp_lines;

/* One function of an object, by file offset (what a mapping of the
 * file gives back from an address); a table is sorted by offset.
 */
struct stp_usym {
	unsigned long offset;
	unsigned long size;	/* 0 when the symbol table has none */
	const char *name;
};

/* How to find the caller's frame from code at [offset, offset + len)
 * of the file, from its call frame information (.eh_frame): the
 * canonical frame address (CFA) is a register plus an offset, the
 * return address is saved just below it, and the caller's frame
 * pointer is saved at CFA + bp_off (0: not saved, still in %rbp).
 * Tables are sorted by offset.
 */
struct stp_ucfi {
	unsigned long offset;
	unsigned int len;
	int cfa_off;
	short bp_off;
	signed char cfa_reg;	/* 7 (%rsp) or 6 (%rbp), DWARF numbers */
};

struct stp_uobj {
	const char *path;	/* canonical absolute path */
	const struct stp_usym *syms;
	unsigned int nsyms;
	const struct stp_ucfi *cfi;
	unsigned int ncfi;
	const struct stp_lines *lines;	/* NULL: none (no DWARF, or the
					 * script asks for no lines) */
};

/* A generated module that knows user objects points stp_script.uobjs
 * (stp_session.h) at its table of them.
 */

#endif
