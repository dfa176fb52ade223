/* emit-decl.c - pass 3: the declarations of the generated module: the
 * C names of the globals, each global (scalar, map or statistic, with
 * its descriptor and lock), the module parameters, the locals struct
 * of every function and handler and the unions that hold them in the
 * context, the prototypes, and the allocation of maps and statistics
 * at init with their release.
 */
#include "emit-int.h"

#include <inttypes.h>
#include <string.h>

void name_globals(struct emitter *em)
{
	struct session *s = em->s;
	int i, j;

	for (i = 0; i < s->globals.n; i++) {
		struct vardecl *v = s->globals.items[i];
		const char *n = arena_printf(s->arena, "g_%s", v->name);

		for (j = 0; j < i; j++)
			if (!strcmp(((struct vardecl *)
				     s->globals.items[j])->priv, n))
				n = arena_printf(s->arena, "g_%s_%d", v->name,
						 i);
		v->priv = (void *)n;
	}
}

/* The parts of a statistic the runtime keeps: those the script reads
 * (analyze.c).
 */
static void stat_desc(struct emitter *em, struct strbuf *o,
		      const struct vardecl *v, const char *name)
{
	const struct expr *hist = v->stat_hist, *var = v->stat_variance;

	(void)em;
	sb_printf(o, "static const struct stp_stat_desc %s = {\n"
		  "\t.ops = 0x%x,\n", name, var ? 0x3f : 0x1f);
	if (var && var->b)
		sb_printf(o, "\t.variance_shift = %" PRId64 ",\n",
			  var->b->num);
	if (hist && hist->hist == HIST_LINEAR) {
		int64_t lo = ((struct expr *)hist->args.items[0])->num;
		int64_t hi = ((struct expr *)hist->args.items[1])->num;
		int64_t w = ((struct expr *)hist->args.items[2])->num;

		sb_printf(o, "\t.hist = STP_HIST_LINEAR,\n"
			  "\t.start = %" PRId64 ",\n\t.stop = %" PRId64 ",\n"
			  "\t.interval = %" PRId64 ",\n\t.buckets = %" PRId64
			  ",\n", lo, hi, w, (hi - lo) / w + 3);
	} else if (hist) {
		sb_puts(o, "\t.hist = STP_HIST_LOG,\n"
			"\t.buckets = STP_MAX_BUCKETS,\n");
	}
	sb_puts(o, "};\n");
}

static void gen_global_decl(struct emitter *em, struct strbuf *o,
			    const struct vardecl *v)
{
	const char *n = v->priv;
	int i;

	sb_printf(o, "/* global %s:%s */\n", v->name, type_name(v->type));
	if (is_array(v)) {
		if (is_stat_var(v))
			stat_desc(em, o, v, arena_printf(em->s->arena,
						       "%s_stat_desc", n));
		sb_printf(o, "static const struct stp_map_desc %s_desc = {\n"
			  "\t.name = \"%s\",\n\t.nkeys = %d,\n\t.key_kind = {",
			  n, v->name, v->arity);
		for (i = 0; i < v->arity; i++)
			sb_printf(o, " %s,", v->index_types[i] == TY_STRING ?
				  "STP_KIND_STRING" : "STP_KIND_LONG");
		sb_printf(o, " },\n\t.val_kind = %s,\n"
			  "\t.maxentries = %ld,\n\t.wrap = %s,\n",
			  is_stat_var(v) ? "STP_KIND_STAT" :
			  v->type == TY_STRING ? "STP_KIND_STRING" :
			  "STP_KIND_LONG",
			  v->maxsize ? v->maxsize : 0L,
			  v->wrap ? "true" : "false");
		if (is_counter(v))
			sb_puts(o, "\t.counter = true,\n");
		if (is_stat_var(v))
			sb_printf(o, "\t.stat = &%s_stat_desc,\n", n);
		sb_printf(o, "};\nstatic struct stp_map *%s;\n", n);
	} else if (is_stat_var(v)) {
		stat_desc(em, o, v, arena_printf(em->s->arena, "%s_desc", n));
		sb_printf(o, "static struct stp_stat *%s;\n", n);
	} else if (v->type == TY_STRING) {
		sb_printf(o, "static char %s[MAXSTRINGLEN]", n);
		if (v->init && v->init->kind == EX_STR)
			sb_printf(o, " = \"%s\"", v->init->str);
		sb_puts(o, ";\n");
	} else {
		sb_printf(o, "static long %s", n);
		if (v->init && v->init->kind == EX_NUM) {
			sb_puts(o, " = ");
			gen_num(o, v->init->num);
		}
		sb_puts(o, ";\n");
	}
	sb_printf(o, "static STP_DEFINE_RWLOCK(%s_lock, \"%s\");\n\n", n,
		  v->name);
}

static void gen_locals_struct(struct strbuf *o, const struct body *b)
{
	int i;

	sb_printf(o, "struct %s {\n", b->locals_type);
	/* an unmangled embedded function also reaches its parameters by
	 * their own names, THIS->name
	 */
	if (b->params)
		for (i = 0; i < b->params->n; i++) {
			const struct vardecl *v = b->params->items[i];
			bool plain = b->func && b->func->code &&
				     b->func->unmangled;

			if (plain && v->type == TY_STRING)
				sb_printf(o, "\tunion {\n\t\tchar l_%s"
					  "[MAXSTRINGLEN];\n\t\tchar %s"
					  "[MAXSTRINGLEN];\n\t};\n",
					  v->name, v->name);
			else if (plain)
				sb_printf(o, "\tunion {\n\t\tint64_t l_%s;\n"
					  "\t\tint64_t %s;\n\t};\n",
					  v->name, v->name);
			else if (v->type == TY_STRING)
				sb_printf(o, "\tchar l_%s[MAXSTRINGLEN];\n",
					  v->name);
			else
				sb_printf(o, "\tint64_t l_%s;\n", v->name);
		}
	for (i = 0; i < b->locals->n; i++) {
		const struct vardecl *v = b->locals->items[i];

		if (v->type == TY_STRING)
			sb_printf(o, "\tchar l_%s[MAXSTRINGLEN];\n", v->name);
		else
			sb_printf(o, "\tint64_t l_%s;\n", v->name);
	}
	if (b->func && b->func->type == TY_STRING)
		sb_puts(o, "\tchar __retvalue[MAXSTRINGLEN];\n");
	else if (b->func)
		sb_puts(o, "\tint64_t __retvalue;\n");
	if (b->tmp_max)
		sb_printf(o, "\tchar __tmp[%d][MAXSTRINGLEN];\n", b->tmp_max);
	sb_puts(o, "\tchar __unused;\n};\n\n");
}

void gen_locals_unions(struct emitter *em, struct strbuf *o)
{
	int i;

	for (i = 0; i < em->bodies.n; i++)
		if (!((const struct body *)em->bodies.items[i])->merged)
			gen_locals_struct(o, em->bodies.items[i]);
	sb_puts(o, "union stp_probe_locals {\n");
	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (!b->func && !b->merged)
			sb_printf(o, "\tstruct %s p%s;\n", b->locals_type,
				  b->cname + strlen("stp_probe_"));
	}
	sb_puts(o, "\tchar __none;\n};\n\nunion stp_func_locals {\n");
	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (b->func)
			sb_printf(o, "\tstruct %s fn_%s;\n", b->locals_type,
				  b->cname + strlen("stp_fn_"));
	}
	sb_puts(o, "\tchar __none;\n};\n\n"
		"#define STP_CONTEXT_LOCALS \\\n"
		"\tunion stp_probe_locals probe_locals; \\\n"
		"\tunion stp_func_locals func_locals[MAXNESTING + 1];");
	if (uses_submatch(em))
		sb_puts(o, " \\\n\tconst struct stp_regex *match_re; \\\n"
			"\tchar match_str[MAXSTRINGLEN];");
	sb_puts(o, "\n\n");
}

void gen_prototypes(struct emitter *em, struct strbuf *o)
{
	int i;

	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (!b->merged)
			sb_printf(o, "static void %s(struct context *c);\n",
				  b->cname);
	}
	if (has_final_print(em))
		sb_puts(o, "static void stp_final_print(struct context *c);\n");
	for (i = 0; i < em->s->probes.n; i++) {
		const struct derived_probe *dp = em->s->probes.items[i];

		/* one that runs another's handler has none of these */
		if (emit_probe_runs(em, dp) != i)
			continue;
		if (takes_locks(dp))
			sb_printf(o, "static inline bool stp_probe_%d_lock(void);\n"
				  "static void stp_probe_%d_unlock(void);\n"
				  "static const struct stp_lockset "
				  "stp_probe_%d_locks;\n", i, i, i);
		if (dp->lean)
			sb_printf(o, "static void stp_probe_%d_lean(void);\n",
				  i);
	}
	sb_putc(o, '\n');
}

/* Every global's lock, for the -t report of skipped hits. */
static void gen_lock_table(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i;

	sb_puts(o, "struct stp_rwlock *const stp_global_locks[] = {\n");
	for (i = 0; i < s->globals.n; i++)
		sb_printf(o, "\t&%s_lock,\n", (const char *)
			  ((struct vardecl *)s->globals.items[i])->priv);
	sb_printf(o, "\tNULL\n};\nconst int stp_nglobal_locks = %d;\n\n",
		  s->globals.n);
}

/* One module parameter per global of the script (-G NAME=VALUE).  The
 * parameter is named after the global, and a global may share its name
 * with a macro of the kernel's headers (ATTR_MODE, PAGE_SIZE): the name
 * is kept from expanding around the macro's own use of it.
 */
static void gen_module_params(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	bool params = false;
	int i;

	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];

		if (is_array(v) || is_stat_var(v) || v->from_tapset)
			continue;
		sb_printf(o, "#pragma push_macro(\"%s\")\n#undef %s\n",
			  v->name, v->name);
		if (v->type == TY_STRING)
			sb_printf(o, "module_param_string(%s, %s, MAXSTRINGLEN, "
				  "0);\n", v->name, (const char *)v->priv);
		else
			sb_printf(o, "module_param_named(%s, %s, long, 0);\n",
				  v->name, (const char *)v->priv);
		sb_printf(o, "#pragma pop_macro(\"%s\")\n", v->name);
		params = true;
	}
	if (params)
		sb_putc(o, '\n');
}

void gen_globals_init(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	bool fails = false;
	int i;

	sb_puts(o, "int stp_globals_init(void)\n{\n");
	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];
		const char *n = v->priv;

		fails |= is_array(v) || is_stat_var(v);
		if (is_array(v))
			sb_printf(o, "\t%s = _stp_map_new(&%s_desc);\n"
				  "\tif (!%s)\n\t\tgoto fail;\n", n, n, n);
		else if (is_stat_var(v))
			sb_printf(o, "\t%s = _stp_stat_new(&%s_desc);\n"
				  "\tif (!%s)\n\t\tgoto fail;\n", n, n, n);
	}
	fails |= em->regexes.n > 0;
	for (i = 0; i < em->regexes.n; i++) {
		/* The literal keeps the script's C escapes: as it is */
		sb_printf(o, "\tif (STP_REGEX_COMPILE(&stp_regex[%d], "
			  "\"%s\"))\n\t\tgoto fail;\n", i,
			  (const char *)em->regexes.items[i]);
	}
	if (fails)
		sb_puts(o, "\treturn 0;\nfail:\n\tstp_globals_free();\n"
			"\treturn -ENOMEM;\n}\n\n");
	else
		sb_puts(o, "\treturn 0;\n}\n\n");
	sb_puts(o, "void stp_globals_free(void)\n{\n");
	if (em->regexes.n)
		sb_printf(o, "\tint i;\n\n\tfor (i = 0; i < %d; i++)\n"
			  "\t\t_stp_regex_free(&stp_regex[i]);\n",
			  em->regexes.n);
	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];
		const char *n = v->priv;

		if (is_array(v))
			sb_printf(o, "\tif (%s)\n\t\t_stp_map_del(%s);\n"
				  "\t%s = NULL;\n", n, n, n);
		else if (is_stat_var(v))
			sb_printf(o, "\tif (%s)\n\t\t_stp_stat_del(%s);\n"
				  "\t%s = NULL;\n", n, n, n);
	}
	sb_puts(o, "}\n\n");
}

/* The module's globals: the regular expressions' table, each global of
 * the script with its lock, the table of those locks, and the -G
 * module parameters.
 */
void gen_global_decls(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i;

	if (em->regexes.n)
		sb_printf(o, "static struct stp_regex stp_regex[%d];\n\n",
			  em->regexes.n);
	for (i = 0; i < s->globals.n; i++)
		gen_global_decl(em, o, s->globals.items[i]);
	gen_lock_table(em, o);
	gen_module_params(em, o);
}
