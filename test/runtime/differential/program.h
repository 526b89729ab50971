// The one definition of every differential program, written against an Api
// adaptor (RuntimeApi, LibTorchApi) whose tensors share PyTorch's method
// names. Instantiated once per side.
#pragma once

#include "case.h"

#include <exception>
#include <stdexcept>

namespace torch_tidy::differential {

/// Runs an in-place op according to c.write_into (inside an operator's
/// kernel when c.through_operator); returns the tensor whose value is the
/// result (the base when writing through a view).
template <class Api, class Write>
typename Api::Tensor write_in_place(const Case &c, typename Api::Tensor self,
                                    Write write) {
  using T = typename Api::Tensor;
  auto run = [&](T &argument, auto &&kernel) {
    if (c.through_operator)
      Api::call_operator(argument, kernel);
    else
      kernel(argument);
  };
  if (c.write_into == WriteInto::Leaf) {
    run(self, write);
    return self;
  }
  T base = self.clone();
  if (c.write_into == WriteInto::Clone) {
    run(base, write);
    return base;
  }
  run(base, [&](T &argument) {
    T view = programs::apply_views(argument, c.views);
    write(view);
  });
  return base;
}

template <class Api>
typename Api::Tensor run_op(const Case &c,
                            const std::vector<typename Api::Tensor> &in) {
  using T = typename Api::Tensor;
  const std::string &op = c.op;
  const auto &k = c.ints;
  auto arg = [&](std::size_t i) -> const T & { return in.at(i); };
  // Out-of-place ops and reads see self through c.views.
  auto self = [&] { return programs::apply_views(arg(0), c.views); };
  auto in_place = [&](auto write) {
    return write_in_place<Api>(c, arg(0), write);
  };

  if (op == "view")
    return self();
  if (op == "factory")
    return Api::factory(c);
  if (op == "copy_")
    return in_place([&](T &t) { t.copy_(arg(1)); });
  if (op == "fill_")
    return in_place([&](T &t) { t.fill_(c.scalar); });
  if (op == "add_")
    return in_place([&](T &t) { t.add_(arg(1)); });
  if (op == "sub_")
    return in_place([&](T &t) { t.sub_(arg(1)); });
  if (op == "mul_")
    return in_place([&](T &t) { t.mul_(arg(1)); });
  if (op == "div_")
    return in_place([&](T &t) { t.div_(arg(1)); });
  if (op == "clamp_")
    return in_place([&](T &t) { t.clamp_(arg(1)); });
  if (op == "index")
    return self().index(Api::indices(c.indices));
  if (op == "index_put_")
    return in_place([&](T &t) { Api::index_put_(t, c, arg(1)); });
  if (op == "index_put")
    return Api::index_put(self(), c, arg(1));
  if (op == "index_copy_")
    return in_place([&](T &t) { t.index_copy_(k[0], arg(1), arg(2)); });
  if (op == "index_copy")
    return self().index_copy(k[0], arg(1), arg(2));
  // index_fill and masked_fill take a 0-dim value tensor when one is given.
  if (op == "index_fill_" && in.size() > 2)
    return in_place([&](T &t) { t.index_fill_(k[0], arg(1), arg(2)); });
  if (op == "index_fill" && in.size() > 2)
    return self().index_fill(k[0], arg(1), arg(2));
  if (op == "index_fill_")
    return in_place([&](T &t) { t.index_fill_(k[0], arg(1), c.scalar); });
  if (op == "index_fill")
    return self().index_fill(k[0], arg(1), c.scalar);
  if (op == "index_select")
    return self().index_select(k[0], arg(1));
  if (op == "scatter_")
    return in_place([&](T &t) { t.scatter_(k[0], arg(1), arg(2)); });
  if (op == "scatter")
    return self().scatter(k[0], arg(1), arg(2));
  if (op == "scatter_value_")
    return in_place([&](T &t) { t.scatter_(k[0], arg(1), c.scalar); });
  if (op == "scatter_value")
    return self().scatter(k[0], arg(1), c.scalar);
  if (op == "gather")
    return self().gather(k[0], arg(1));
  if (op == "masked_fill_" && in.size() > 2)
    return in_place([&](T &t) { t.masked_fill_(arg(1), arg(2)); });
  if (op == "masked_fill" && in.size() > 2)
    return self().masked_fill(arg(1), arg(2));
  if (op == "masked_fill_")
    return in_place([&](T &t) { t.masked_fill_(arg(1), c.scalar); });
  if (op == "masked_fill")
    return self().masked_fill(arg(1), c.scalar);
  if (op == "masked_scatter_")
    return in_place([&](T &t) { t.masked_scatter_(arg(1), arg(2)); });
  if (op == "masked_scatter")
    return self().masked_scatter(arg(1), arg(2));
  if (op == "masked_select")
    return self().masked_select(arg(1));
  if (op == "slice_scatter")
    return self().slice_scatter(arg(1), k[0], k[1], k[2], k[3]);
  if (op == "select_scatter")
    return self().select_scatter(arg(1), k[0], k[1]);
  if (op == "add")
    return self().add(arg(1));
  if (op == "sub")
    return self().sub(arg(1));
  if (op == "mul")
    return self().mul(arg(1));
  if (op == "div")
    return self().div(arg(1));
  if (op == "clamp")
    return self().clamp(arg(1));
  if (op == "sum")
    return self().sum();
  if (op == "sum_dims")
    return Api::sum_dims(self(), c.shape, c.flag);
  throw std::logic_error("differential: unknown op " + op);
}

/// Distinct small dyadic weights, so float sums are exact on both sides.
inline double loss_weight(std::uint64_t seed, std::size_t i) {
  return double(std::int64_t((i * 7 + seed) % 9) - 4) / 4.0;
}

template <class Api> Outcome run_case(const Case &c) {
  using T = typename Api::Tensor;
  Outcome out;
  std::vector<T> inputs, grad_inputs;
  T result;
  try {
    for (const Array &a : c.inputs) {
      inputs.push_back(Api::make(a));
      if (a.requires_grad)
        grad_inputs.push_back(inputs.back());
    }
    result = run_op<Api>(c, inputs);
    out.result = Api::read(result);
    out.result_requires_grad = result.requires_grad();
    out.strides = Api::strides(result);
    out.offset = Api::offset(result);
  } catch (const std::exception &e) {
    out.error = true;
    out.message = e.what();
    return out;
  }
  if (!out.result_requires_grad || grad_inputs.empty())
    return out;
  try {
    std::vector<double> weights(out.result.values.size());
    for (std::size_t i = 0; i < weights.size(); ++i)
      weights[i] = loss_weight(c.weight_seed, i);
    T loss =
        result.mul(Api::make({out.result.shape, out.result.dtype, weights}))
            .sum();
    std::vector<T> grads = Api::grad(loss, grad_inputs);
    for (std::size_t i = 0; i < grads.size(); ++i)
      out.grads.push_back(Api::defined(grads[i])
                              ? Api::read(grads[i])
                              : Api::zeros_array(grad_inputs[i]));
  } catch (const std::exception &e) {
    out.backward_error = true;
    out.backward_message = e.what();
  }
  return out;
}

} // namespace torch_tidy::differential
