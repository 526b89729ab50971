//===- RuleForms.h - The text forms of the rewrite rules' fixes -*- C++ -*-===//
//
// Every row of RewriteRules.def carries the forms its fix's replacement texts
// take (the Forms column). The planner (lib/rewrite) emits a fix only where
// every edit has its rule's form, and torch-tidy-verify accepts a fix only
// where every replacement does: both read this one column, so the forms the
// verifier proves are the forms the rewriter spells.
//
// A form is a template; the table's strings use a small notation:
//   $t, $v, $n  an identifier, the same text at every use within one
//               alternative (the target, a value, a view's name)
//   @           any non-empty text with balanced (), [] and {} and string
//               literals, and no `;` outside brackets (an expression, or
//               an argument list)
//   ~           spaces and tabs, possibly none
//   $(a|b|c)    one of the literal texts a, b, c
//   $[...]      the bracketed template, or nothing
//   |or|        separates alternative forms of the whole fix
//   |then|      separates the fix's edits, in file order, within one form
// Every other character stands for itself.
//
// No LLVM: lib/verify builds wherever the reference runtime does.
//
//===----------------------------------------------------------------------===//
#ifndef TORCH_TIDY_RULES_RULEFORMS_H
#define TORCH_TIDY_RULES_RULEFORMS_H

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace torch_tidy::rules {

/// A row of RewriteRules.def as the forms see it.
struct RuleRow {
  std::string_view id;
  std::string_view style; ///< IndexPut, Scatter, Both, Other or Schema
  std::string_view forms; ///< empty for Schema rows (proven on real torch)
};

/// Every row, in table order.
const std::vector<RuleRow> &rule_rows();
const RuleRow *find_rule_row(std::string_view id);

/// The alternatives of a Forms string, each a list of edit templates.
std::vector<std::vector<std::string>> split_forms(std::string_view forms);

/// The texts an identifier hole ($t, $v, $n) was bound to.
using FormBindings = std::map<char, std::string>;

/// Whether Text has the form of one template (one edit), binding the
/// identifier holes. A template that does not parse matches nothing.
bool matches_template(std::string_view tmpl, std::string_view text,
                      FormBindings *bindings = nullptr);

/// Text on one line: each whitespace run that holds a line break, as a fix
/// wrapped to a column limit has them, is removed after an opening bracket
/// and before a closing bracket, `.` or `->`, and is one space elsewhere. So
/// a fix laid out over several lines (`t = t.select_scatter(\n    v, 0, i)`)
/// reads as the one-line text its rule's forms spell (`t =
/// t.select_scatter(v, 0, i)`). Whitespace inside string and character
/// literals is kept.
std::string unwrap_lines(std::string_view text);

/// Whether Texts (the fix's edits, in file order) have one of the rule's
/// alternative forms: as many edits as the alternative has, each with its
/// template's form (read on one line, unwrap_lines) and one binding of the
/// holes across them. Sets *Alternative to the index of the alternative
/// matched.
bool matches_rule_forms(std::string_view forms,
                        const std::vector<std::string> &texts,
                        size_t *alternative = nullptr);

/// The parts a fix may add to its rule's edits, also in RewriteRules.def:
/// deleting the declaration of a named view the rewritten write went through
/// (the deleted text, without the whitespace around it), and binding named
/// views read after the write again (each inserted line).
bool is_named_view_declaration(std::string_view deleted_text);
bool is_named_view_rebind_line(std::string_view line, std::string *name,
                               std::string *init);

} // namespace torch_tidy::rules

#endif
