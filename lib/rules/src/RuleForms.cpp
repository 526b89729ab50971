//===- RuleForms.cpp - The text forms of the rewrite rules' fixes ---------===//

#include "torch_tidy/rules/RuleForms.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>

namespace torch_tidy::rules {
namespace {

const std::vector<RuleRow> kRows = {
#define TORCH_TIDY_REWRITE_RULE(Id, Style, Before, After, Forms)               \
  {Id, #Style, Forms},
#include "torch_tidy/rules/RewriteRules.def"
};

struct Part {
  std::string_view id, form;
};
const Part kParts[] = {
#define TORCH_TIDY_REWRITE_RULE(Id, Style, Before, After, Forms)
#define TORCH_TIDY_FIX_PART(Id, Form) {Id, Form},
#include "torch_tidy/rules/RewriteRules.def"
};

std::string_view part(std::string_view id) {
  for (const Part &p : kParts)
    if (p.id == id)
      return p.form;
  return {};
}

// A parsed template: a sequence of nodes.
struct Node;
using Seq = std::vector<Node>;
struct Node {
  enum Kind { Literal, Ident, Balanced, Space, Choice, Optional } kind;
  std::string text;                 ///< Literal; Ident: the hole's letter
  std::vector<std::string> choices; ///< Choice
  std::shared_ptr<Seq> body;        ///< Optional
};

// Parses T[I..] up to End (a ']' for an optional group, or the end).
std::optional<Seq> parse(std::string_view t, size_t &i, bool in_group) {
  Seq seq;
  auto literal = [&](char c) {
    if (seq.empty() || seq.back().kind != Node::Literal)
      seq.push_back({Node::Literal, "", {}, nullptr});
    seq.back().text += c;
  };
  while (i < t.size()) {
    char c = t[i];
    if (c == ']' && in_group) {
      ++i;
      return seq;
    }
    if (c == '@') {
      seq.push_back({Node::Balanced, "", {}, nullptr});
      ++i;
    } else if (c == '~') {
      seq.push_back({Node::Space, "", {}, nullptr});
      ++i;
    } else if (c == '$' && i + 1 < t.size()) {
      char k = t[i + 1];
      if (k == 't' || k == 'v' || k == 'n') {
        seq.push_back({Node::Ident, std::string(1, k), {}, nullptr});
        i += 2;
      } else if (k == '(') {
        size_t close = t.find(')', i + 2);
        if (close == std::string_view::npos)
          return std::nullopt;
        Node n{Node::Choice, "", {}, nullptr};
        std::string_view list = t.substr(i + 2, close - i - 2);
        size_t start = 0;
        for (;;) {
          size_t bar = list.find('|', start);
          n.choices.emplace_back(list.substr(start, bar - start));
          if (bar == std::string_view::npos)
            break;
          start = bar + 1;
        }
        seq.push_back(std::move(n));
        i = close + 1;
      } else if (k == '[') {
        i += 2;
        std::optional<Seq> body = parse(t, i, true);
        if (!body)
          return std::nullopt;
        seq.push_back(
            {Node::Optional, "", {}, std::make_shared<Seq>(std::move(*body))});
      } else {
        return std::nullopt;
      }
    } else {
      literal(c);
      ++i;
    }
  }
  if (in_group)
    return std::nullopt; // an unclosed $[
  return seq;
}

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The ends E > I such that S[I..E) is a balanced run: brackets matched,
// string and character literals whole, no ';' outside brackets.
std::vector<size_t> balancedEnds(std::string_view s, size_t i) {
  std::vector<size_t> ends;
  std::string stack;
  for (size_t k = i; k < s.size(); ++k) {
    char c = s[k];
    if (c == '"' || c == '\'') {
      size_t q = k + 1;
      while (q < s.size() && s[q] != c)
        q += s[q] == '\\' ? 2 : 1;
      if (q >= s.size())
        return ends;
      k = q;
    } else if (c == '(' || c == '[' || c == '{') {
      stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (c == ')' || c == ']' || c == '}') {
      if (stack.empty() || stack.back() != c)
        return ends;
      stack.pop_back();
    } else if (c == ';' && stack.empty()) {
      return ends;
    }
    if (stack.empty())
      ends.push_back(k + 1);
  }
  return ends;
}

// Matches SEQ[N..] followed by REST against S[I..], to the end of S.
struct Matcher {
  std::string_view s;
  FormBindings b;

  bool match(const Seq &seq, size_t n, size_t i,
             const std::vector<std::pair<const Seq *, size_t>> &rest) {
    if (n == seq.size()) {
      if (rest.empty())
        return i == s.size();
      auto more = rest;
      auto [next, at] = more.back();
      more.pop_back();
      return match(*next, at, i, more);
    }
    const Node &node = seq[n];
    switch (node.kind) {
    case Node::Literal:
      return s.substr(i, node.text.size()) == node.text &&
             match(seq, n + 1, i + node.text.size(), rest);
    case Node::Space: {
      size_t e = i;
      while (e < s.size() && (s[e] == ' ' || s[e] == '\t'))
        ++e;
      return match(seq, n + 1, e, rest);
    }
    case Node::Ident: {
      size_t e = i;
      while (e < s.size() && isIdentChar(s[e]))
        ++e;
      if (e == i || std::isdigit(static_cast<unsigned char>(s[i])))
        return false;
      char key = node.text[0];
      std::string name(s.substr(i, e - i));
      auto it = b.find(key);
      if (it != b.end())
        return it->second == name && match(seq, n + 1, e, rest);
      b[key] = name;
      if (match(seq, n + 1, e, rest))
        return true;
      b.erase(key);
      return false;
    }
    case Node::Balanced:
      for (size_t e : balancedEnds(s, i)) {
        FormBindings saved = b;
        if (match(seq, n + 1, e, rest))
          return true;
        b = saved;
      }
      return false;
    case Node::Choice:
      for (const std::string &c : node.choices) {
        FormBindings saved = b;
        if (s.substr(i, c.size()) == c && match(seq, n + 1, i + c.size(), rest))
          return true;
        b = saved;
      }
      return false;
    case Node::Optional: {
      FormBindings saved = b;
      auto more = rest;
      more.emplace_back(&seq, n + 1);
      if (match(*node.body, 0, i, more))
        return true;
      b = saved;
      return match(seq, n + 1, i, rest);
    }
    }
    return false;
  }
};

std::vector<std::string> splitOn(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at - start));
    if (at == std::string_view::npos)
      return out;
    start = at + sep.size();
  }
}

} // namespace

const std::vector<RuleRow> &rule_rows() { return kRows; }

const RuleRow *find_rule_row(std::string_view id) {
  for (const RuleRow &r : kRows)
    if (r.id == id)
      return &r;
  return nullptr;
}

std::vector<std::vector<std::string>> split_forms(std::string_view forms) {
  std::vector<std::vector<std::string>> out;
  if (forms.empty())
    return out;
  for (const std::string &alt : splitOn(forms, "|or|"))
    out.push_back(splitOn(alt, "|then|"));
  return out;
}

bool matches_template(std::string_view tmpl, std::string_view text,
                      FormBindings *bindings) {
  size_t i = 0;
  std::optional<Seq> seq = parse(tmpl, i, false);
  if (!seq)
    return false;
  Matcher m{text, bindings ? *bindings : FormBindings{}};
  if (!m.match(*seq, 0, 0, {}))
    return false;
  if (bindings)
    *bindings = std::move(m.b);
  return true;
}

std::string unwrap_lines(std::string_view text) {
  std::string out;
  for (size_t k = 0; k < text.size();) {
    char c = text[k];
    if (c == '"' || c == '\'') { // a literal, whole
      size_t q = k + 1;
      while (q < text.size() && text[q] != c)
        q += text[q] == '\\' ? 2 : 1;
      q = std::min(q + 1, text.size());
      out.append(text.substr(k, q - k));
      k = q;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out += c;
      ++k;
      continue;
    }
    size_t e = k;
    bool line_break = false;
    while (e < text.size() && (text[e] == ' ' || text[e] == '\t' ||
                               text[e] == '\n' || text[e] == '\r')) {
      line_break |= text[e] == '\n';
      ++e;
    }
    if (!line_break) {
      out.append(text.substr(k, e - k));
    } else {
      char before = out.empty() ? '(' : out.back();
      std::string_view after = text.substr(e);
      bool glue = before == '(' || before == '[' || before == '{' ||
                  after.empty() || after[0] == ')' || after[0] == ']' ||
                  after[0] == '}' || after[0] == '.' ||
                  after.substr(0, 2) == "->";
      if (!glue)
        out += ' ';
    }
    k = e;
  }
  return out;
}

bool matches_rule_forms(std::string_view forms,
                        const std::vector<std::string> &given,
                        size_t *alternative) {
  std::vector<std::string> texts;
  for (const std::string &t : given)
    texts.push_back(unwrap_lines(t));
  std::vector<std::vector<std::string>> alts = split_forms(forms);
  for (size_t a = 0; a < alts.size(); ++a) {
    if (alts[a].size() != texts.size())
      continue;
    FormBindings b;
    bool all = true;
    for (size_t k = 0; k < texts.size() && all; ++k)
      all = matches_template(alts[a][k], texts[k], &b);
    if (all) {
      if (alternative)
        *alternative = a;
      return true;
    }
  }
  return false;
}

bool is_named_view_declaration(std::string_view deleted_text) {
  // Whitespace runs as one space, none at either end.
  std::string text;
  for (char c : deleted_text) {
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space) {
      if (!text.empty() && text.back() != ' ')
        text += ' ';
    } else {
      text += c;
    }
  }
  if (!text.empty() && text.back() == ' ')
    text.pop_back();
  return matches_template(part("named-view-declaration"), text);
}

bool is_named_view_rebind_line(std::string_view line, std::string *name,
                               std::string *init) {
  FormBindings b;
  if (!matches_template(part("named-view-rebind"), line, &b))
    return false;
  if (name)
    *name = b['n'];
  if (init) {
    // The text between "NAME = " and the final ';'.
    size_t eq = line.find(" = ");
    *init = std::string(line.substr(eq + 3, line.size() - eq - 4));
  }
  return true;
}

} // namespace torch_tidy::rules
