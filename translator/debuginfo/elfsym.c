/* elfsym.c - the symbol-table walk of elfsym.h. */
#include "debuginfo/elfsym.h"

#include <stddef.h>

int elf_each_symbol(Elf *e, GElf_Word shtype,
		    bool (*cb)(const GElf_Sym *s, const char *name, void *arg),
		    void *arg)
{
	Elf_Scn *scn = NULL;
	int tables = 0;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != shtype)
			continue;
		tables++;
		if (!sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s) ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && *name && !cb(&s, name, arg))
				return tables;
		}
	}
	return tables;
}
