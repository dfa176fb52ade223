/* emit-final.c - pass 3: what the module prints when the run ends on
 * its own account: the globals the script wrote but never read (each
 * scalar, statistic and array element, as the established tool prints
 * them, or as JSON objects with --json), in stp_final_print().
 */
#include "emit-int.h"

static bool wants_final_print(const struct vardecl *v)
{
	return v->final_print;
}

static void gen_final_print_one(struct strbuf *o, const struct vardecl *v)
{
	const char *n = v->priv;
	int i;

	if (is_array(v)) {
		sb_printf(o, "\t{\n\t\tstruct stp_map_node *__n;\n\n");
		/* by descending value; statistics by descending @count */
		if (is_stat_var(v))
			sb_printf(o, "\t\t_stp_map_agg(%s);\n", n);
		sb_printf(o, "\t\t_stp_map_sort(%s, 0, -1, STP_STAT_COUNT);\n",
			  n);
		sb_printf(o, "\t\tfor (__n = _stp_map_first(%s); __n; "
			  "__n = _stp_map_next(%s, __n)) {\n", n, n);
		sb_printf(o, "\t\t\t_stp_print(\"%s[\");\n", v->name);
		for (i = 0; i < v->arity; i++) {
			if (i)
				sb_puts(o, "\t\t\t_stp_print(\",\");\n");
			if (v->index_types[i] == TY_STRING)
				sb_printf(o, "\t\t\t_stp_printf(\"\\\"%%s\\\"\", "
					  "_stp_node_key_str(%s, __n, %d));\n",
					  n, i);
			else
				sb_printf(o, "\t\t\t_stp_printf(\"%%d\", "
					  "_stp_node_key_long(%s, __n, %d));\n",
					  n, i);
		}
		if (is_stat_var(v))
			sb_printf(o, "\t\t\t_stp_print(\"]\");\n"
				  "\t\t\tstp_print_stat(_stp_node_stat(%s, "
				  "__n));\n", n);
		else if (v->type == TY_STRING)
			sb_printf(o, "\t\t\t_stp_printf(\"]=\\\"%%s\\\"\\n\", "
				  "_stp_node_str(%s, __n));\n", n);
		else
			sb_printf(o, "\t\t\t_stp_printf(\"]=%%d\\n\", "
				  "_stp_node_long(%s, __n));\n", n);
		sb_puts(o, "\t\t}\n\t}\n");
	} else if (is_stat_var(v)) {
		sb_printf(o, "\t_stp_print(\"%s\");\n"
			  "\tstp_print_stat(_stp_stat_get(%s));\n", v->name, n);
	} else if (v->type == TY_STRING) {
		sb_printf(o, "\t_stp_printf(\"%s=\\\"%%s\\\"\\n\", %s);\n",
			  v->name, n);
	} else {
		sb_printf(o, "\t_stp_printf(\"%s=%%d\\n\", %s);\n", v->name,
			  n);
	}
}

/* stap --json: one object per global, or per element of an array
 * (doc/json.md); the global's name is a script identifier, which needs
 * no escaping.
 */
static void gen_final_json_one(struct strbuf *o, const struct vardecl *v)
{
	const char *n = v->priv;
	int i;

	if (!is_array(v)) {
		sb_printf(o, "\t_stp_print(\"{\\\"type\\\":\\\"global\\\","
			  "\\\"name\\\":\\\"%s\\\",\");\n", v->name);
		if (is_stat_var(v))
			sb_printf(o, "\t_stp_print(\"\\\"stat\\\":{\");\n"
				  "\t_stp_stat_print_json(_stp_stat_get(%s));\n"
				  "\t_stp_print(\"}}\\n\");\n", n);
		else if (v->type == TY_STRING)
			sb_printf(o, "\t_stp_print(\"\\\"value\\\":\");\n"
				  "\t_stp_print_json_str(%s);\n"
				  "\t_stp_print(\"}\\n\");\n", n);
		else
			sb_printf(o, "\t_stp_printf(\"\\\"value\\\":%%d}\\n\", "
				  "%s);\n", n);
		return;
	}
	sb_printf(o, "\t{\n\t\tstruct stp_map_node *__n;\n\n");
	if (is_stat_var(v))
		sb_printf(o, "\t\t_stp_map_agg(%s);\n", n);
	sb_printf(o, "\t\t_stp_map_sort(%s, 0, -1, STP_STAT_COUNT);\n", n);
	sb_printf(o, "\t\tfor (__n = _stp_map_first(%s); __n; "
		  "__n = _stp_map_next(%s, __n)) {\n", n, n);
	sb_printf(o, "\t\t\t_stp_print(\"{\\\"type\\\":\\\"global\\\","
		  "\\\"name\\\":\\\"%s\\\",\\\"keys\\\":[\");\n", v->name);
	for (i = 0; i < v->arity; i++) {
		if (i)
			sb_puts(o, "\t\t\t_stp_print_char(',');\n");
		if (v->index_types[i] == TY_STRING)
			sb_printf(o, "\t\t\t_stp_print_json_str("
				  "_stp_node_key_str(%s, __n, %d));\n", n, i);
		else
			sb_printf(o, "\t\t\t_stp_printf(\"%%d\", "
				  "_stp_node_key_long(%s, __n, %d));\n", n, i);
	}
	if (is_stat_var(v))
		sb_printf(o, "\t\t\t_stp_print(\"],\\\"stat\\\":{\");\n"
			  "\t\t\t_stp_stat_print_json(_stp_node_stat(%s, "
			  "__n));\n\t\t\t_stp_print(\"}}\\n\");\n", n);
	else if (v->type == TY_STRING)
		sb_printf(o, "\t\t\t_stp_print(\"],\\\"value\\\":\");\n"
			  "\t\t\t_stp_print_json_str(_stp_node_str(%s, __n));\n"
			  "\t\t\t_stp_print(\"}\\n\");\n", n);
	else
		sb_printf(o, "\t\t\t_stp_printf(\"],\\\"value\\\":%%d}\\n\", "
			  "_stp_node_long(%s, __n));\n", n);
	sb_puts(o, "\t\t}\n\t}\n");
}

static void gen_final_json(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i;

	sb_puts(o, "/* Globals the script wrote but never read, as JSON. */\n"
		"static void stp_final_print(struct context *c)\n{\n"
		"\t_stp_print_kind(STP_JSON_OBJECTS);\n");
	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];

		if (wants_final_print(v))
			gen_final_json_one(o, v);
	}
	sb_puts(o, "\t_stp_print_kind(STP_JSON_TEXT);\n}\n\n");
}

/* Whether the end of the run prints anything of its own. */
bool has_final_print(const struct emitter *em)
{
	const struct session *s = em->s;
	int i;

	if (s->opt.json)
		return true;
	for (i = 0; i < s->globals.n; i++)
		if (wants_final_print(s->globals.items[i]))
			return true;
	return false;
}

void gen_final_print(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	bool stats = false;
	int i;

	if (s->opt.json) {
		gen_final_json(em, o);
		return;
	}

	if (!has_final_print(em))
		return;
	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];

		stats |= wants_final_print(v) && is_stat_var(v);
	}
	if (stats)
		sb_puts(o, "static void\n"
		"stp_print_stat(const struct stp_stat_agg *a)\n"
		"{\n"
		"\tif (!a->count) {\n"
		"\t\t_stp_print(\" @count=0\\n\");\n"
		"\t\treturn;\n"
		"\t}\n"
		"\t_stp_printf(\" @count=%d @min=%d @max=%d @sum=%d "
		"@avg=%d\\n\",\n\t\t    a->count, a->min, a->max, a->sum,\n"
		"\t\t    div64_s64(a->sum, a->count));\n"
		"}\n\n");
	sb_puts(o, "/* Globals the script wrote but never read. */\n"
		"static void stp_final_print(struct context *c)\n{\n");
	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];

		if (wants_final_print(v))
			gen_final_print_one(o, v);
	}
	sb_puts(o, "}\n\n");
}
