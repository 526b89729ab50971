// Comparing two outcomes, and printing cases for failure reports.
#include "compare.h"

#include <cmath>
#include <sstream>

namespace torch_tidy::differential {

using programs::shape_text;

namespace {

bool close(double a, double b, DType dtype) {
  if (a == b) // infinities of one sign too
    return true;
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  if (dtype == DType::Float32)
    return std::fabs(a - b) <= 1e-5 + 1e-5 * std::fabs(b);
  if (dtype == DType::Float64)
    return std::fabs(a - b) <= 1e-10 + 1e-10 * std::fabs(b);
  return a == b;
}

std::string compare_arrays(const char *what, const Array &a, const Array &b,
                           bool values) {
  if (a.shape != b.shape)
    return std::string(what) + " shape " + shape_text(a.shape) + " vs " +
           shape_text(b.shape);
  if (a.dtype != b.dtype)
    return std::string(what) + " dtype " + runtime::name(a.dtype) + " vs " +
           runtime::name(b.dtype);
  if (values)
    for (std::size_t i = 0; i < a.values.size(); ++i)
      if (!close(a.values[i], b.values[i], a.dtype))
        return std::string(what) + " value at " + std::to_string(i) + ": " +
               std::to_string(a.values[i]) + " vs " +
               std::to_string(b.values[i]);
  return "";
}

} // namespace

std::string compare(const Case &c, const Outcome &rt, const Outcome &torch) {
  if (rt.error || torch.error) {
    if (rt.error && torch.error)
      return "";
    return rt.error ? "runtime raised, LibTorch did not: " + rt.message
                    : "LibTorch raised, runtime did not: " + torch.message;
  }
  std::string diff =
      compare_arrays("result", rt.result, torch.result, c.compare_values);
  if (!diff.empty())
    return diff;
  if (c.compare_layout &&
      (rt.strides != torch.strides || rt.offset != torch.offset))
    return "layout: strides " + shape_text(rt.strides) + " offset " +
           std::to_string(rt.offset) + " vs strides " +
           shape_text(torch.strides) + " offset " +
           std::to_string(torch.offset);
  if (rt.result_requires_grad != torch.result_requires_grad)
    return std::string("requires_grad ") +
           (rt.result_requires_grad ? "true" : "false") + " vs " +
           (torch.result_requires_grad ? "true" : "false");
  if (rt.backward_error != torch.backward_error)
    return rt.backward_error
               ? "runtime backward raised: " + rt.backward_message
               : "LibTorch backward raised: " + torch.backward_message;
  if (rt.grads.size() != torch.grads.size())
    return "gradient count differs";
  for (std::size_t i = 0; i < rt.grads.size(); ++i) {
    diff = compare_arrays(("grad " + std::to_string(i)).c_str(), rt.grads[i],
                          torch.grads[i], true);
    if (!diff.empty())
      return diff;
  }
  return "";
}

std::string describe(const Case &c) {
  std::ostringstream out;
  out << c.family << "/" << c.op;
  static const char *into[] = {"leaf", "clone", "view-of-clone"};
  out << " into=" << into[int(c.write_into)];
  if (c.through_operator)
    out << " (in an operator's kernel)";
  for (const Array &a : c.inputs)
    out << " in" << shape_text(a.shape) << ":" << runtime::name(a.dtype)
        << (a.requires_grad ? ":rg" : "");
  if (!c.views.empty())
    out << " views=self" << programs::view_text(c.views);
  if (!c.indices.empty())
    out << " idx=" << programs::index_text(c.indices, [](const Array &a) {
      std::ostringstream t;
      t << runtime::name(a.dtype) << shape_text(a.shape) << "{";
      for (double v : a.values)
        t << v << " ";
      return t.str() + "}";
    });
  out << " ints=" << shape_text(c.ints) << " shape=" << shape_text(c.shape)
      << " scalar=" << c.scalar << " flag=" << c.flag
      << " raw_list=" << c.raw_list;
  return out.str();
}

} // namespace torch_tidy::differential
