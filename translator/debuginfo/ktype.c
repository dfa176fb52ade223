/* ktype.c - what every type source shares: member lookup by name. */
#include "debuginfo/ktype.h"

#include <errno.h>
#include <string.h>

static bool find_in(const struct ktype *t, const char *name,
		    unsigned long base, struct kmember *out, int depth)
{
	struct kmember m;
	int i;

	/* anonymous members nest only a few deep in practice */
	if (depth > 16)
		return false;
	for (i = 0; !t->src->ops->member_at(t->src, t, i, &m); i++) {
		if (*m.name) {
			if (strcmp(m.name, name))
				continue;
			*out = m;
			out->offset += base;
			return true;
		}
		if ((m.type->kind == KT_STRUCT || m.type->kind == KT_UNION) &&
		    find_in(m.type, name, base + m.offset, out, depth + 1))
			return true;
	}
	return false;
}

int ktype_member(const struct ktype *t, const char *name,
		 struct kmember *out)
{
	if (!t || (t->kind != KT_STRUCT && t->kind != KT_UNION) || !t->src)
		return -ENOENT;
	return find_in(t, name, 0, out, 0) ? 0 : -ENOENT;
}
