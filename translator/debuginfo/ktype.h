/* ktype.h - target types and functions as probes see them, whatever
 * the type source (BTF, DWARF).  Kernel probes resolve $param, member
 * chains, @cast and `stap -L` through this interface only, so that a
 * script resolves the same way from either source.
 *
 * Everything a source hands out belongs to it and lives until the
 * source is freed; callers free nothing.
 */
#ifndef TAPIR_DEBUGINFO_KTYPE_H
#define TAPIR_DEBUGINFO_KTYPE_H

#include <stdbool.h>
#include <stdint.h>

enum kt_kind {
	KT_VOID,
	KT_INT,		/* integers, bool, char */
	KT_ENUM,
	KT_FLOAT,
	KT_PTR,
	KT_ARRAY,
	KT_STRUCT,
	KT_UNION,
	KT_FUNC,	/* a function type (what a function pointer points to) */
};

struct ksrc;

/* A type with typedefs and qualifiers looked through for its shape, but
 * named as written ("size_t", "const char*"), as `stap -L` prints it.
 */
struct ktype {
	enum kt_kind kind;
	const char *name;
	unsigned int size;		/* bytes; 0 for void, functions and
					 * incomplete types */
	bool is_signed;			/* KT_INT, KT_ENUM */
	bool is_char;			/* KT_INT of one byte named char */
	const struct ktype *target;	/* KT_PTR: pointee (kind KT_VOID for
					 * void*); KT_ARRAY: element */
	unsigned int nelem;		/* KT_ARRAY: 0 if unknown/flexible */
	const struct ksrc *src;		/* where members/enumerators are */
	uintptr_t handle;		/* the source's own id of the type */
};

struct kmember {
	const char *name;		/* "" for an anonymous member */
	unsigned long offset;		/* bytes from the start of the type */
	const struct ktype *type;
	unsigned int bit_offset;	/* bits past offset, if bit_size */
	unsigned int bit_size;		/* bitfield width, 0 if not one */
};

#define KFUNC_MAX_PARAMS 16

struct kparam {
	const char *name;		/* "" if unnamed */
	const struct ktype *type;
};

struct kfunc {
	const char *name;
	const char *file;		/* declaring file, NULL if unknown */
	int line;			/* its line, 0 if unknown */
	const struct ktype *ret;	/* kind KT_VOID for void */
	int nparams;
	bool variadic;
	struct kparam params[KFUNC_MAX_PARAMS];
};

/* A type source.  Each op returns 0 or a negative errno (-ENOENT when
 * the name is unknown); the members of a source are its own business.
 */
struct ksrc_ops {
	const char *name;		/* "BTF", "DWARF" */
	int (*func)(const struct ksrc *s, const char *name,
		    struct kfunc *out);
	/* cb per function matching glob, strcmp order, each name once;
	 * returns the number reported.
	 */
	int (*funcs_matching)(const struct ksrc *s, const char *glob,
			      void (*cb)(const char *name, void *arg),
			      void *arg);
	/* "struct task_struct", "union u", "enum e", a typedef name or a
	 * base type name ("int", "unsigned long").
	 */
	int (*type_by_name)(const struct ksrc *s, const char *name,
			    const struct ktype **out);
	/* Member i (0-based, declaration order, anonymous members as
	 * themselves) of a KT_STRUCT/KT_UNION; -ENOENT past the end.
	 */
	int (*member_at)(const struct ksrc *s, const struct ktype *t, int i,
			 struct kmember *out);
	/* The enumerator of t with this value, or NULL. */
	const char *(*enum_name)(const struct ksrc *s, const struct ktype *t,
				 int64_t value);
};

struct ksrc {
	const struct ksrc_ops *ops;
};

/* Member name of t, found as C finds it: through anonymous struct and
 * union members, offsets added up.  0 or -ENOENT.
 */
int ktype_member(const struct ktype *t, const char *name,
		 struct kmember *out);

/* t with the pointer/array/struct shape, for messages: "struct file*". */
static inline const char *ktype_name(const struct ktype *t)
{
	return t ? t->name : "void";
}

static inline bool ktype_is_scalar(const struct ktype *t)
{
	return t->kind == KT_INT || t->kind == KT_ENUM || t->kind == KT_PTR;
}

#endif
