/* elfsym.h - one walk over an ELF file's symbol table, for the readers
 * of vmlinux, modules, programs and libraries.
 */
#ifndef TAPIR_ELFSYM_H
#define TAPIR_ELFSYM_H

#include <gelf.h>
#include <stdbool.h>

/* cb for each defined symbol with a name in the sections of type
 * shtype (SHT_SYMTAB or SHT_DYNSYM), until it returns false.  Returns
 * the number of such sections (0: the file has no such table).
 */
int elf_each_symbol(Elf *e, GElf_Word shtype,
		    bool (*cb)(const GElf_Sym *s, const char *name, void *arg),
		    void *arg);

#endif
