/* providers/syscall.c - kernel.syscall("PATTERN")[.return]: native x86_64
 * system calls by name, their numbers read from the target kernel's
 * unistd_64.h; kernel.syscall("PATTERN").compat[.return]: the system
 * calls of 32-bit (IA-32) tasks, from unistd_32.h, their arguments in
 * the i386 registers (socketcall, which x86_64 does not have, is the
 * reason: the tapset's syscall.send and .recv); and
 * process[(PID|"PATH")].syscall[.return]: every system
 * call of the processes (all user processes, or the target's tree under
 * -c/-x; one process; the processes running a program).  The module runs
 * them from one sys_enter and one sys_exit tracepoint callback that
 * dispatch on the number through the tables written here
 * (runtime/stp_syscall.c); no debuginfo is involved.
 */
#include "../diag.h"
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The target kernel's system calls, sorted by name. */
struct sc_ent {
	const char *name;
	int nr;
};

struct sc_table {
	int n;
	struct sc_ent *ents;
	const char *failed;		/* why it could not be read */
	bool reported;
};

/* What a derived probe is: one system call, at entry or return, or
 * (process.syscall, nr -1) every one, in the processes it names.
 */
struct sc_probe {
	const char *name;
	int nr;
	bool ret;
	bool compat;		/* .compat: a 32-bit task's call */
	bool proc;		/* process[(...)].syscall */
	int64_t pid;		/* process(PID), or 0 */
	const char *path;	/* process("PATH"), or NULL */
	/* the call's C parameters, $NAME for $argN, looked up on first
	 * use of a name: NULL when none was found
	 */
	bool proto_tried;
	const struct kfunc *proto;
};

/* Numbers above this are not native system calls (x32 starts at 2^30). */
#define SC_MAX_NR 4096

/* $syscall, $arg1..$arg6, $return: c->targs[0 .. 7] of the runtime. */
#define SC_NARGS 6
#define SC_TARG_RETURN 7

static const struct ktype sc_long = {
	.kind = KT_INT,
	.name = "long",
	.size = 8,
	.is_signed = true,
};

static int cmp_ent(const void *a, const void *b)
{
	const struct sc_ent *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* "#define __NR_name number" outside any #if but the include guard. */
static void sc_parse_line(struct arena *a, struct vec *out, const char *l,
			  size_t n, int *depth)
{
	const char *p, *q;
	struct sc_ent *e;
	char *end;
	long v;

	if (n >= 3 && !strncmp(l, "#if", 3)) {
		++*depth;
		return;
	}
	if (n >= 6 && !strncmp(l, "#endif", 6)) {
		--*depth;
		return;
	}
	if (*depth > 1 || n < 14 || strncmp(l, "#define __NR_", 13))
		return;
	p = l + 13;
	q = p + strcspn(p, " \t\n");
	if (q == p || *q == '\n' || !*q)
		return;
	v = strtol(q, &end, 10);
	if (end == q || v < 0 || v >= SC_MAX_NR)
		return;
	e = arena_alloc(a, sizeof(*e));
	e->name = arena_strndup(a, p, (size_t)(q - p));
	e->nr = (int)v;
	vec_push(a, out, e);
}

static struct sc_table *sc_load(struct session *s, const char *path,
				const char **why)
{
	struct sc_table *t = arena_alloc(s->arena, sizeof(*t));
	struct vec ents = { 0 };
	char *text = read_file(path, NULL);
	const char *l;
	int depth = 0, i;

	if (!text) {
		*why = strerror(errno);
		return NULL;
	}
	for (l = text; *l;) {
		size_t n = strcspn(l, "\n");

		sc_parse_line(s->arena, &ents, l, n, &depth);
		l += n + (l[n] == '\n');
	}
	free(text);
	if (!ents.n) {
		*why = "no __NR_ definitions in it";
		return NULL;
	}
	t->n = ents.n;
	t->ents = arena_alloc(s->arena, sizeof(*t->ents) * (size_t)t->n);
	for (i = 0; i < t->n; i++)
		t->ents[i] = *(struct sc_ent *)ents.items[i];
	qsort(t->ents, (size_t)t->n, sizeof(*t->ents), cmp_ent);
	return t;
}

/* The session's table, read on first use; NULL after reporting.  Why
 * it cannot be read is said even in a wildcard's quiet branch or at an
 * optional point the first time (a plain "no match" would hide it),
 * then at each point that must resolve.
 */
static const struct sc_table *sc_table(struct prov_ctx *c, struct loc loc,
				       bool compat)
{
	struct session *s = c->s;
	struct sc_table **tp = compat ? &s->syscalls32 : &s->syscalls;
	struct sc_table *t = *tp;
	const char *why = NULL;

	if (!t) {
		const char *path = arena_printf(s->arena, "%s/arch/x86/"
				"include/generated/uapi/asm/unistd_%s.h",
				s->opt.kernel_build_dir, compat ? "32" : "64");

		t = sc_load(s, path, &why);
		if (!t) {
			t = arena_alloc(s->arena, sizeof(*t));
			t->failed = arena_printf(s->arena, "no %ssystem call "
					"list for kernel %s: '%s': %s",
					compat ? "32-bit " : "",
					s->kernel_vr, path, why);
		}
		*tp = t;
	}
	if (!t->failed)
		return t;
	c->errors++;
	if (!(c->quiet || c->optional) || !t->reported)
		diag_error(s, loc, "%s", t->failed);
	t->reported = true;
	return NULL;
}

static const struct sc_ent *sc_find(const struct sc_table *t,
				    const char *name)
{
	struct sc_ent key = { name, 0 };

	return bsearch(&key, t->ents, (size_t)t->n, sizeof(*t->ents),
		       cmp_ent);
}

static const struct pp_comp *sc_comp(const struct probe_point *pp)
{
	const struct pp_comp *c = pp_comp_of(pp, intern("syscall"));

	return c && c->arg && c->arg->kind == EX_STR ? c : NULL;
}

/* pp with the argument of its syscall component replaced by name. */
static struct probe_point *sc_point(struct arena *a,
				    const struct probe_point *pp,
				    const char *name)
{
	struct probe_point *np = arena_alloc(a, sizeof(*np));
	int i;

	*np = *pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (oc->functor == intern("syscall")) {
			struct expr *s = arena_alloc(a, sizeof(*s));

			*s = *oc->arg;
			s->str = name;
			nc->arg = s;
		}
		vec_push(a, &np->comps, nc);
	}
	return np;
}

/* Every system call the pattern matches, by name; none is "no match". */
static int sc_expand(struct prov_ctx *c, const struct probe_point *pp,
		     struct vec *out)
{
	const struct pp_comp *comp = sc_comp(pp);
	const struct sc_table *t;
	const char *pat;
	int i;

	if (pp_comp_of(pp, intern("process")))
		return prov_expand_process(c, pp, out);
	if (!comp)
		return -1;
	pat = comp->arg->str;
	if (!*pat) {
		prov_error(c, comp->arg->loc, "kernel.syscall needs a system "
			   "call name");
		return -1;
	}
	t = sc_table(c, pp->loc, pp_comp_of(pp, intern("compat")) != NULL);
	if (!t)
		return -1;
	for (i = 0; i < t->n; i++)
		if (has_wildcard(pat) ? glob_match(pat, t->ents[i].name) :
					!strcmp(pat, t->ents[i].name))
			vec_push(c->s->arena, out,
				 sc_point(c->s->arena, pp, t->ents[i].name));
	return out->n;
}

static int sc_build_process(struct prov_ctx *c, struct derived_probe *dp,
			    struct sc_probe *p)
{
	const struct pp_comp *proc = pp_comp_of(dp->pp, intern("process"));

	p->proc = true;
	p->nr = -1;
	p->name = "*";
	if (!proc->arg)
		return 0;
	if (proc->arg->kind == EX_STR) {
		p->path = proc->arg->str;
		return 0;
	}
	if (!pp_arg_num(proc->arg, &p->pid) || p->pid <= 0 ||
	    p->pid > INT32_MAX) {
		prov_error(c, proc->arg->loc, "process(%" PRId64 "): not a "
			   "process ID", p->pid);
		return -1;
	}
	return 0;
}

static const struct kfunc *sc_proto(struct prov_ctx *c, struct sc_probe *p);

static int sc_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct pp_comp *comp = sc_comp(dp->pp);
	const struct pp_comp *last = vec_last(&dp->pp->comps);
	struct sc_probe *p = arena_alloc(c->s->arena, sizeof(*p));
	const struct sc_table *t;
	const struct sc_ent *e;

	dp->priv = p;
	p->ret = !strcmp(last->functor, "return");
	dp->returns = p->ret;
	if (pp_comp_of(dp->pp, intern("process")))
		return sc_build_process(c, dp, p);
	if (!comp)
		return -1;
	p->compat = pp_comp_of(dp->pp, intern("compat")) != NULL;
	t = sc_table(c, dp->pp->loc, p->compat);
	if (!t)
		return -1;
	e = sc_find(t, comp->arg->str);
	if (!e) {
		prov_error(c, dp->pp->loc, "no %ssystem call '%s' in kernel "
			   "%s", p->compat ? "32-bit " : "", comp->arg->str,
			   c->s->kernel_vr);
		return -1;
	}
	p->name = e->name;
	p->nr = e->nr;
	p->ret = !strcmp(last->functor, "return");
	/* stap -L lists the parameters too */
	if (c->s->opt.list_vars && !p->compat)
		sc_proto(c, p);
	return 0;
}

static void sc_alternatives(struct strbuf *sb, const struct sc_probe *p)
{
	int i;

	sb_puts(sb, " $syscall:long");
	for (i = 1; i <= SC_NARGS; i++)
		sb_printf(sb, " $arg%d:long", i);
	if (p->ret)
		sb_puts(sb, " $return:long");
}

/* ------------------------------------------------------------------ */
/* The calls' C parameters                                            */

/* The kernel's include/linux/syscalls.h: in the build tree, its source
 * link, or the tree its Makefile includes (Debian's -common package).
 */
static char *sc_header(struct session *s)
{
	const char *b = s->opt.kernel_build_dir;
	const char *dirs[2] = { b, arena_printf(s->arena, "%s/source", b) };
	char *text, *mk, *inc, *end;
	int i;

	for (i = 0; i < 2; i++) {
		text = read_file(arena_printf(s->arena, "%s/include/linux/"
					      "syscalls.h", dirs[i]), NULL);
		if (text)
			return text;
	}
	mk = read_file(arena_printf(s->arena, "%s/Makefile", b), NULL);
	inc = mk ? strstr(mk, "include /") : NULL;
	if (!inc) {
		free(mk);
		return NULL;
	}
	inc += 8;
	end = inc + strcspn(inc, " \t\n");
	if (end - inc > 9 && !strncmp(end - 9, "/Makefile", 9))
		end -= 9;
	text = read_file(arena_printf(s->arena, "%.*s/include/linux/"
				      "syscalls.h", (int)(end - inc), inc),
			 NULL);
	free(mk);
	return text;
}

/* The type a prototype writes, as the type source knows it: qualifiers
 * and __user dropped, pointers kept; a plain long when it is unknown.
 */
static const struct ktype *sc_ctype(struct session *s, const struct ksrc *src,
				    const char *text, size_t n)
{
	struct strbuf sb;
	const struct ktype *t = NULL;
	const char *p = text, *end = text + n;
	int stars = 0;

	sb_init(&sb);
	while (p < end) {
		const char *w = p;

		if (*p == '*') {
			stars++;
			p++;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_') {
			p++;
			continue;
		}
		while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		if ((p - w == 5 && !strncmp(w, "const", 5)) ||
		    (p - w == 6 && !strncmp(w, "__user", 6)) ||
		    (p - w == 8 && !strncmp(w, "volatile", 8)))
			continue;
		sb_printf(&sb, "%s%.*s", sb.len ? " " : "", (int)(p - w), w);
	}
	if (src && sb.len && src->ops->type_by_name(src, sb.buf, &t))
		t = NULL;
	sb_free(&sb);
	if (!t)
		return stars ? target_pointer_to(s->arena, &sc_long) :
			       &sc_long;
	while (stars--)
		t = target_pointer_to(s->arena, t);
	return t;
}

/* Whether the parameter declaration [p, q), whose last word is [w, e),
 * has no name: "int", "void __user *", "struct sockaddr __user *",
 * "unsigned long" (many prototypes of syscalls.h have only types).
 */
static bool sc_unnamed(const char *p, const char *q, const char *w,
		       const char *e)
{
	static const char *const types[] = {
		"__user", "const", "volatile", "int", "long", "char", "short",
		"unsigned", "signed", "size_t", "loff_t", "off_t", "pid_t",
		"uid_t", "gid_t", "umode_t", "key_serial_t", "u32", "u64",
		"__u32", "__u64", "qid_t", "timer_t", "clockid_t", "mqd_t",
		"aio_context_t", "rwf_t", "old_uid_t", "old_gid_t",
	};
	const char *r = q;
	size_t i, words = 0;
	bool in = false;

	while (r > p && isspace((unsigned char)r[-1]))
		r--;
	if (r > p && r[-1] == '*')
		return true;
	for (r = p; r < e; r++) {
		bool id = isalnum((unsigned char)*r) || *r == '_';

		if (id && !in)
			words++;
		in = id;
	}
	if (words < 2)
		return true;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((size_t)(e - w) == strlen(types[i]) &&
		    !strncmp(w, types[i], (size_t)(e - w)))
			return true;
	while (p < w && isspace((unsigned char)*p))
		p++;
	return words == 2 && (!strncmp(p, "struct ", 7) ||
			      !strncmp(p, "union ", 6) ||
			      !strncmp(p, "enum ", 5));
}

/* sys_NAME's prototype in syscalls.h: its parameters' names and types. */
static struct kfunc *sc_header_proto(struct session *s,
				     const struct ksrc *src, const char *name)
{
	char *text = sc_header(s);
	const char *key = arena_printf(s->arena, " sys_%s(", name);
	const char *p, *q, *close;
	struct kfunc *f;

	p = text ? strstr(text, key) : NULL;
	close = p ? strchr(p, ')') : NULL;
	if (!close) {
		free(text);
		return NULL;
	}
	f = arena_alloc(s->arena, sizeof(*f));
	f->name = arena_printf(s->arena, "sys_%s", name);
	f->ret = &sc_long;
	for (p += strlen(key); p < close && f->nparams < SC_NARGS; p = q + 1) {
		const char *e, *w;

		q = memchr(p, ',', (size_t)(close - p));
		if (!q)
			q = close;
		for (e = q; e > p && !isalnum((unsigned char)e[-1]) &&
		     e[-1] != '_'; e--)
			;
		for (w = e; w > p && (isalnum((unsigned char)w[-1]) ||
				      w[-1] == '_'); w--)
			;
		if (w == e || (e - w == 4 && !strncmp(w, "void", 4)))
			break;
		if (sc_unnamed(p, q, w, e)) {
			/* a prototype without names names nothing */
			f = NULL;
			break;
		}
		f->params[f->nparams].name = arena_strndup(s->arena, w,
							   (size_t)(e - w));
		f->params[f->nparams++].type =
			sc_ctype(s, src, p, (size_t)(w - p));
	}
	free(text);
	return f;
}

/* The call's parameters: the definition's own (__do_sys_NAME in the
 * kernel's DWARF or BTF, when it is there), else the prototype of the
 * kernel's headers; NULL when neither knows the call.  Nothing is
 * reported: the caller says what was not found.
 */
static const struct kfunc *sc_proto(struct prov_ctx *c, struct sc_probe *p)
{
	struct prov_ctx q = *c;
	const struct ksrc *src;
	struct kfunc *f;

	if (p->proto_tried)
		return p->proto;
	p->proto_tried = true;
	q.quiet = true;
	src = target_kernel_types(&q, (struct loc){ 0 });
	f = arena_alloc(c->s->arena, sizeof(*f));
	if (src && !src->ops->func(src, arena_printf(c->s->arena,
				   "__do_sys_%s", p->name), f) &&
	    f->nparams <= SC_NARGS)
		p->proto = f;
	else
		p->proto = sc_header_proto(c->s, src, p->name);
	return p->proto;
}

/* $NAME, a parameter of the call: its argument register, typed. */
static int sc_param(struct prov_ctx *c, struct sc_probe *p, const char *name,
		    const struct ktype **type)
{
	const struct kfunc *f = p->proc || p->compat ? NULL : sc_proto(c, p);
	int i;

	for (i = 0; f && i < f->nparams; i++)
		if (*f->params[i].name && !strcmp(f->params[i].name, name + 1)) {
			*type = f->params[i].type;
			return i + 1;
		}
	return -1;
}

/* $argN: N from 1 to 6, written without leading zeros. */
static int sc_argno(const char *name)
{
	if (strncmp(name, "$arg", 4) || name[4] < '1' ||
	    name[4] > '0' + SC_NARGS || name[5])
		return -1;
	return name[4] - '0';
}

static int sc_resolve_target(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e)
{
	struct sc_probe *p = dp->priv;
	const struct ktype *type = &sc_long;
	struct tref *r;
	int argno = sc_argno(e->name);

	if (!strcmp(e->name, "$syscall")) {
		argno = 0;
	} else if (!strcmp(e->name, "$return")) {
		if (c->at_entry) {
			prov_error(c, e->loc, "$return has no value at entry");
			return -1;
		}
		if (!p->ret) {
			prov_error(c, e->loc, "$return is only available in "
				   ".return probes");
			return -1;
		}
		argno = SC_TARG_RETURN;
	} else if (argno < 0 &&
		   (argno = sc_param(c, p, e->name, &type)) < 0) {
		struct strbuf sb;

		sb_init(&sb);
		sc_alternatives(&sb, p);
		if (p->proto)
			target_list_params(&sb, p->proto);
		prov_error(c, e->loc, "unable to find '%s' at %s "
			   "(alternatives:%s)", e->name, dp->name, sb.buf);
		sb_free(&sb);
		return -1;
	}
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_TARG;
	r->argno = argno;
	r->type = r->final = type;
	/* the arguments at entry, the value at the return */
	r->sc_arg = !p->proc && argno && (argno == SC_TARG_RETURN) == p->ret;
	return target_bind(c, e, r);
}

/* Whether e reads only what the task's saved registers still hold when
 * the call returns: its number and arguments, with literals and
 * operators (no memory, no function, no $return).
 */
static bool sc_entry_same(const struct expr *e)
{
	if (!e)
		return true;
	switch (e->kind) {
	case EX_NUM:
	case EX_STR:
		return true;
	case EX_TARGET:
		return e->tbase == TB_VAR && !e->comps.n && !e->addressof &&
		       !e->pretty && e->tref && e->tref->base == TRB_TARG &&
		       e->tref->argno != SC_TARG_RETURN;
	case EX_UNARY:
	case EX_BINARY:
	case EX_LOGICAL:
	case EX_COMPARE:
	case EX_CONCAT:
	case EX_TERNARY:
		return sc_entry_same(e->a) && sc_entry_same(e->b) &&
		       sc_entry_same(e->c);
	default:
		return false;
	}
}

/* @entry(E) in a .return: the call's number and arguments are still in
 * its saved registers at the return, so E over them is E itself.
 * Anything else (a time, a string the call may overwrite) is evaluated
 * at the call's entry into a frame kept for the calling task, and read
 * from it at the return.
 */
static int sc_resolve_entry(struct prov_ctx *c, struct derived_probe *dp,
			    struct expr *e)
{
	if (sc_entry_same(e->a)) {
		*e = *e->a;
		return 0;
	}
	prov_save_at_entry(c, dp, e, e->a);
	return 0;
}

static void sc_list_vars(const struct derived_probe *dp, struct strbuf *sb)
{
	const struct sc_probe *p = dp->priv;

	sc_alternatives(sb, p);
	if (p->proto)
		target_list_params(sb, p->proto);
}

/* ------------------------------------------------------------------ */
/* Pass 3                                                             */

static const struct sc_probe *sc_of(struct vec *dps, int i)
{
	return ((struct derived_probe *)dps->items[i])->priv;
}

static bool sc_saves(struct vec *dps, int i)
{
	return ((struct derived_probe *)dps->items[i])->entry_exprs.n > 0;
}

/* Whether probe i has a row in the entry (ret false) or the return
 * table: a .return probe that saves values at entry has one in both,
 * its entry part running at the call's entry.
 */
static bool sc_in(struct vec *dps, int i, bool ret)
{
	return sc_of(dps, i)->ret == ret ||
	       (!ret && sc_of(dps, i)->ret && sc_saves(dps, i));
}

/* first[nr]: how many of the direction's probes are on calls below nr. */
/* Whether probe i is one of a table's dispatched by number: native
 * or 32-bit calls, not process.syscall (those run on every call).
 */
static bool sc_numbered(struct vec *dps, int i, bool ret, bool compat)
{
	return sc_in(dps, i, ret) && !sc_of(dps, i)->proc &&
	       sc_of(dps, i)->compat == compat;
}

static void sc_emit_first(struct strbuf *d, struct vec *dps, bool ret,
			  bool compat, const char *tag, int max)
{
	int i, nr, k = 0;

	sb_printf(d, "static const u16 stp_sc_%s_first[%d] = {", tag,
		  max + 2);
	for (nr = 0; nr <= max + 1; nr++) {
		sb_printf(d, "%s%d,", nr % 12 ? " " : "\n\t", k);
		for (i = 0; nr <= max && i < dps->n; i++)
			k += sc_numbered(dps, i, ret, compat) &&
			     sc_of(dps, i)->nr == nr;
	}
	sb_puts(d, "\n};\n\n");
}

static void sc_emit_probe(struct emitter *em, struct strbuf *d,
			  struct derived_probe *dp, bool ret)
{
	const struct sc_probe *p = dp->priv;
	bool save = p->ret && !ret;

	if (save)
		sb_printf(d, "\t{ &stp_entry_probe_%d, NULL, %s", dp->index,
			  emit_probe_run_flags(em, dp));
	else {
		sb_printf(d, "\t{ %s, ", emit_probe_ref(em, dp));
		if (emit_probe_lean(em, dp))
			sb_printf(d, "%s_lean, ",
				  emit_probe_handler(em, dp));
		else
			sb_puts(d, "NULL, ");
		sb_puts(d, emit_probe_run_flags(em, dp));
	}
	if (p->proc)
		sb_printf(d, ", .proc = true, .pid = %" PRId64, p->pid);
	if (p->path) {
		sb_puts(d, ", .path = ");
		sb_c_string(d, p->path);
	}
	if (dp->entry_exprs.n)
		sb_printf(d, ", .frames = &stp_sc_frames_%d", dp->index);
	if (save)
		sb_printf(d, ", .save = true, .data_size = sizeof(struct "
			  "stp_entry_%d)", dp->index);
	sb_printf(d, " },\t/* %s%s */\n", p->name, save ? " (entry)" : "");
}

/* One direction's table: the probes grouped by number, in the script's
 * order on each, and where each number's group starts (first[nr] ..
 * first[nr + 1] - 1).  The runtime runs them all from one callback, so
 * a probe costs its handler only.  The 32-bit calls' probes are a
 * table of their own (tag_compat), which the native one points to.
 */
static void sc_emit_table(struct emitter *em, struct strbuf *d,
			  struct vec *dps, bool ret, const char *tag,
			  bool compat)
{
	const char *ctag = arena_printf(emit_session(em)->arena, "%s_compat",
					tag);
	int i, nr, max = -1, total = 0, nall = 0, ncompat = 0;

	for (i = 0; i < dps->n; i++) {
		if (!compat && sc_numbered(dps, i, ret, true))
			ncompat++;
		if (sc_numbered(dps, i, ret, compat)) {
			total++;
			if (sc_of(dps, i)->nr > max)
				max = sc_of(dps, i)->nr;
		} else if (!compat && sc_in(dps, i, ret) &&
			   sc_of(dps, i)->proc) {
			nall++;
		}
	}
	if (!total && !nall && !ncompat)
		return;
	if (ncompat)
		sc_emit_table(em, d, dps, ret, ctag, true);
	if (total) {
		sb_printf(d, "static const struct stp_syscall_probe "
			  "stp_sc_%s_probes[%d] = {\n", tag, total);
		for (nr = 0; nr <= max; nr++)
			for (i = 0; i < dps->n; i++)
				if (sc_numbered(dps, i, ret, compat) &&
				    sc_of(dps, i)->nr == nr)
					sc_emit_probe(em, d, dps->items[i],
						      ret);
		sb_puts(d, "};\n\n");
		sc_emit_first(d, dps, ret, compat, tag, max);
	}
	if (nall) {
		sb_printf(d, "static struct stp_syscall_probe "
			  "stp_sc_%s_all[%d] = {\n", tag, nall);
		for (i = 0; i < dps->n; i++)
			if (sc_in(dps, i, ret) && sc_of(dps, i)->proc)
				sc_emit_probe(em, d, dps->items[i], ret);
		sb_puts(d, "};\n\n");
	}
	sb_printf(d, "static %sstruct stp_syscall_table stp_sc_%s = {\n",
		  compat ? "const " : "", tag);
	if (total)
		sb_printf(d, "\t.nr = %d,\n\t.first = stp_sc_%s_first,\n"
			  "\t.probes = stp_sc_%s_probes,\n\t.nprobes = %d,\n",
			  max + 1, tag, tag, total);
	if (nall)
		sb_printf(d, "\t.all = stp_sc_%s_all,\n\t.nall = %d,\n",
			  tag, nall);
	if (ncompat)
		sb_printf(d, "\t.compat = &stp_sc_%s,\n", ctag);
	sb_puts(d, "};\n\n");
}

static bool sc_any(struct vec *dps, bool ret)
{
	int i;

	for (i = 0; i < dps->n; i++)
		if (sc_in(dps, i, ret))
			return true;
	return false;
}

static void sc_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	bool enter = sc_any(dps, false), exit = sc_any(dps, true);
	int i;

	/* the frames of the values saved at entry, allocated at start */
	for (i = 0; i < dps->n; i++)
		if (sc_saves(dps, i))
			sb_printf(d, "static struct stp_uframes "
				  "*stp_sc_frames_%d;\n",
				  ((struct derived_probe *)
				   dps->items[i])->index);
	sc_emit_table(em, d, dps, false, "enter", false);
	sc_emit_table(em, d, dps, true, "exit", false);
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_syscalls_register(%s, %s);\n",
		  enter ? "&stp_sc_enter" : "NULL",
		  exit ? "&stp_sc_exit" : "NULL");
	sb_puts(emit_out(em, EMIT_STOP), "\t_stp_syscalls_unregister();\n");
}

static const char *sc_probe_type(const struct derived_probe *dp)
{
	const struct sc_probe *p = dp->priv;

	return p->proc ? "STP_PROBE_PROCESS_SYSCALL" : "STP_PROBE_SYSCALL";
}

static const char *const sc_patterns[] = {
	"kernel.syscall(s){,.compat}{,.return}",
	"{process,process(n),process(s)}.syscall{,.return}",
	NULL
};

const struct provider syscall_provider = {
	.name = "kernel.syscall",
	.patterns = sc_patterns,
	.expand = sc_expand,
	.build = sc_build,
	.resolve_target = sc_resolve_target,
	.resolve_entry = sc_resolve_entry,
	.entry_data = "c->edata",
	.entry_type = "STP_PROBE_SYSCALL",
	.list_vars = sc_list_vars,
	.emit_group = sc_emit_group,
	.probe_type = sc_probe_type,
};
