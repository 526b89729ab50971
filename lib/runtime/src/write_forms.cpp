#include "torch_tidy/runtime/write_forms.h"

#include "torch_tidy/runtime/runtime.h"

namespace torch_tidy::runtime {

namespace {

// Fixed operands of the forms: m is [B, n, n] = [2, 3, 3].
Tensor rows() { return from_doubles({0, 1, 2}, {3}, {DType::Int64}); }
Tensor cols() { return from_doubles({1, 2, 0}, {3}, {DType::Int64}); }
Tensor two_rows() { return from_doubles({2, 0}, {2}, {DType::Int64}); }
Tensor checker_mask() {
  std::vector<double> bits(18);
  for (std::size_t i = 0; i < bits.size(); ++i)
    bits[i] = double(i % 2);
  return from_doubles(bits, {2, 3, 3}, {DType::Bool});
}
Tensor scatter_index() {
  return from_doubles({2, 0, 1, 1, 2, 0}, {2, 3, 1}, {DType::Int64});
}

std::vector<WriteForm> make_write_forms() {
  using T = Tensor;
  return {
      // --- in-place forms
      // -----------------------------------------------------
      {"setitem_adv_",
       true,
       {2, 3},
       [](T &m, const T &v) {
         return m.index_put_({Slice{}, rows(), cols()}, v);
       }},
      {"setitem_slice_int_",
       true,
       {2, 3},
       [](T &m, const T &v) { return m.index_put_({Slice{}, 0}, v); }},
      {"setitem_int_",
       true,
       {3, 3},
       [](T &m, const T &v) { return m.index_put_({0}, v); }},
      {"narrow_copy_",
       true,
       {2, 2, 3},
       [](T &m, const T &v) {
         m.narrow(1, 0, 2).copy_(v);
         return m;
       }},
      {"index_copy_",
       true,
       {2, 2, 3},
       [](T &m, const T &v) { return m.index_copy_(1, two_rows(), v); }},
      {"masked_scatter_",
       true,
       {9},
       [](T &m, const T &v) { return m.masked_scatter_(checker_mask(), v); }},
      {"scatter_",
       true,
       {2, 3, 1},
       [](T &m, const T &v) { return m.scatter_(2, scatter_index(), v); }},
      {"view_alias_copy_",
       true,
       {1, 3, 3},
       [](T &m, const T &v) {
         Tensor w = m.slice(0, 1, 3);
         w.copy_(v);
         return m;
       }},
      {"index_put_accumulate_",
       true,
       {2, 3},
       [](T &m, const T &v) {
         return m.index_put_({Slice{}, rows(), cols()}, v, true);
       }},
      {"select_copy_",
       true,
       {3, 3},
       [](T &m, const T &v) {
         m.select(0, 1).copy_(v);
         return m;
       }},
      {"copy_", true, {2, 3, 3}, [](T &m, const T &v) { return m.copy_(v); }},
      // --- out-of-place twins
      // ---------------------------------------------------
      {"index_put",
       false,
       {2, 3},
       [](T &m, const T &v) {
         return m.index_put({Slice{}, rows(), cols()}, v);
       }},
      {"slice_scatter",
       false,
       {2, 2, 3},
       [](T &m, const T &v) { return m.slice_scatter(v, 1, 0, 2); }},
      {"select_scatter",
       false,
       {3, 3},
       [](T &m, const T &v) { return m.select_scatter(v, 0, 0); }},
      {"index_copy",
       false,
       {2, 2, 3},
       [](T &m, const T &v) { return m.index_copy(1, two_rows(), v); }},
      {"masked_scatter",
       false,
       {9},
       [](T &m, const T &v) { return m.masked_scatter(checker_mask(), v); }},
      {"scatter",
       false,
       {2, 3, 1},
       [](T &m, const T &v) { return m.scatter(2, scatter_index(), v); }},
  };
}

} // namespace

const std::vector<WriteForm> &write_forms() {
  static const std::vector<WriteForm> forms = make_write_forms();
  return forms;
}

const WriteForm &write_form(const std::string &id) {
  for (const WriteForm &form : write_forms())
    if (form.id == id)
      return form;
  throw Error("unknown write form '" + id + "'");
}

Shape write_form_target_shape() { return {2, 3, 3}; }

SeedProgramRun run_seed_program(const WriteForm &form, const Tensor &source,
                                bool branch_on_requires_grad, WriteSite site) {
  Tensor m = zeros(write_form_target_shape());
  if (site == WriteSite::Program)
    m = form.write(m, source);
  else if (form.in_place)
    call_operator([&] { form.write(m, source); }); // m is Tensor(a!)
  else
    m = call_operator_returning([&] { return form.write(m, source); });
  SeedProgramRun run;
  run.requires_grad_after_write = m.requires_grad();
  if (branch_on_requires_grad && !run.requires_grad_after_write)
    m = m.detach(); // the user's "no grad needed here" shortcut
  run.result = m;
  std::vector<double> weights(std::size_t(m.numel()));
  for (std::size_t i = 0; i < weights.size(); ++i)
    weights[i] = double(i % 5) - 2;
  run.loss = m.mul(from_doubles(weights, m.sizes())).sum();
  return run;
}

} // namespace torch_tidy::runtime
