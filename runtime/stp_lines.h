/* stp_lines.h - source lines of code addresses for symline(),
 * usymline() and their kin: the line tables the translator writes into
 * a module that uses them, for the probed kernel functions and the user
 * objects the module knows (stp_usym.h).
 */
#ifndef STP_LINES_H
#define STP_LINES_H

/* The row decoded last before rows[pos]: lookups start at the last
 * checkpoint at or below an address instead of the first row.
 */
struct stp_lchk {
	unsigned long addr;
	unsigned int pos;
	unsigned int file;
	int line;
};

/* Rows by address (a file offset in a user object, an offset from the
 * function's start in the kernel, a section address of the translator's
 * choosing in a kernel module), each holding its address up to the
 * next row, encoded from the previous row (the first from 0, file 0,
 * line 0): ULEB128 (address delta << 1 | the file changes), the new
 * file's index in ULEB128 when it does, the line delta in SLEB128.
 * Line 0 is a gap with no line.  The first row is checkpoint 0.
 */
struct stp_lines {
	const unsigned char *rows;
	unsigned int len;
	const struct stp_lchk *chk;
	unsigned int nchk;
	const char *const *files;
};

/* The lines of one function of the kernel or of a module, which
 * kallsyms names: its rows start at base in lines (0 in a table of its
 * own; a module's functions share one table, by the addresses the
 * translator gave the module's sections, so that where the kernel loads
 * the module never matters).
 */
struct stp_kline {
	const char *name;
	unsigned long size;
	const struct stp_lines *lines;
	const char *mod;	/* NULL: the kernel itself */
	unsigned long base;
};

/* A generated module with kernel lines points stp_script.klines
 * (stp_session.h) at its table of them, sorted by name (then the
 * kernel's before the modules', by module).
 */

#endif
