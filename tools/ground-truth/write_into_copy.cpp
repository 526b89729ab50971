// Ground truth for torch-write-into-copy (issue 48): for each method that
// returns its receiver when nothing needs changing and a copy otherwise,
// does an in-place write into its result reach the receiver?
//
// Built against a LibTorch (2.8 from the wheel, 1.13 from Debian) by
// write_into_copy.py and run on CPU. Per method, a receiver that needs no
// copy and one that does, and two write forms: an ATen in-place op
// (`add_`) and a raw pointer write through `data_ptr`. Prints one TSV line
// per measurement:
//
//   method <TAB> receiver <TAB> form <TAB> copies <TAB> reaches
//
// copies: whether the result shares no storage with the receiver; reaches:
// whether the receiver's values changed. The receivers that need a copy for
// another device (to(kCUDA), cpu() of a CUDA tensor, cuda()) need a GPU and
// are not measured here.
#include <ATen/ATen.h>
#include <torch/version.h>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Receiver {
  std::string Name;
  std::function<at::Tensor()> Make;
};

struct Method {
  std::string Name;
  // Applies the method; the result may borrow (expect_contiguous).
  std::function<at::Tensor(const at::Tensor &)> Apply;
  std::vector<Receiver> Receivers;
};

at::Tensor base(at::ScalarType T = at::kFloat) {
  return at::arange(24, at::TensorOptions().dtype(at::kFloat))
      .reshape({2, 3, 4})
      .to(T);
}

void writeRaw(at::Tensor &R) {
  AT_DISPATCH_ALL_TYPES_AND(at::kHalf, R.scalar_type(), "write_raw",
                            [&] { R.data_ptr<scalar_t>()[0] = scalar_t(100); });
}

bool sharesStorage(const at::Tensor &A, const at::Tensor &B) {
  return A.storage().unsafeGetStorageImpl() ==
         B.storage().unsafeGetStorageImpl();
}

void measure(const Method &M) {
  for (const Receiver &Recv : M.Receivers)
    for (const std::string Form : {"aten_inplace", "raw_pointer"}) {
      at::Tensor X = Recv.Make();
      at::Tensor Before = X.clone();
      at::Tensor R = M.Apply(X);
      bool Copies = !sharesStorage(R, X);
      if (Form == "aten_inplace")
        R.add_(1);
      else
        writeRaw(R);
      bool Reaches = !at::equal(Before, X);
      std::cout << M.Name << '\t' << Recv.Name << '\t' << Form << '\t'
                << (Copies ? "copy" : "same") << '\t'
                << (Reaches ? "reaches" : "lost") << '\n';
    }
}

} // namespace

int main() {
  Receiver Contig{"contiguous", [] { return base(); }};
  Receiver Transposed{"transposed", [] { return base().transpose(0, 2); }};
  Receiver Float{"float32", [] { return base(); }};
  Receiver Double{"float64", [] { return base(at::kDouble); }};
  Receiver Half{"float16", [] { return base(at::kHalf); }};
  Receiver Cpu{"cpu", [] { return base(); }};
  Receiver ChannelsLast{"channels_last", [] {
                          return base()
                              .reshape({1, 2, 3, 4})
                              .contiguous(at::MemoryFormat::ChannelsLast);
                        }};
  Receiver Contig4d{"contiguous_4d",
                    [] { return base().reshape({1, 2, 3, 4}); }};

  std::vector<Method> Methods = {
      {"contiguous",
       [](const at::Tensor &X) { return X.contiguous(); },
       {Contig, Transposed}},
      {"to_dtype",
       [](const at::Tensor &X) { return X.to(at::kFloat); },
       {Float, Double}},
      {"to_device", [](const at::Tensor &X) { return X.to(at::kCPU); }, {Cpu}},
      {"to_memory_format",
       [](const at::Tensor &X) {
         return X.contiguous(at::MemoryFormat::ChannelsLast);
       },
       {ChannelsLast, Contig4d}},
      {"to_options_memory_format",
       [](const at::Tensor &X) {
         return X.to(X.options(), /*non_blocking=*/false, /*copy=*/false,
                     at::MemoryFormat::ChannelsLast);
       },
       {ChannelsLast, Contig4d}},
      {"cpu", [](const at::Tensor &X) { return X.cpu(); }, {Cpu}},
      // Python's float() and half(); C++ spells them to(dtype).
      {"to_dtype_half",
       [](const at::Tensor &X) { return X.to(at::kHalf); },
       {Half, Float}},
      {"toType",
       [](const at::Tensor &X) { return X.toType(at::kFloat); },
       {Float, Double}},
      {"reshape",
       [](const at::Tensor &X) { return X.reshape({24}); },
       {Contig, Transposed}},
      {"flatten",
       [](const at::Tensor &X) { return X.flatten(); },
       {Contig, Transposed}},
      {"expect_contiguous",
       [](const at::Tensor &X) {
         c10::MaybeOwned<at::Tensor> C = X.expect_contiguous();
         return at::Tensor(*C);
       },
       {Contig, Transposed}},
  };
  for (const Method &M : Methods)
    measure(M);
  std::cout << "torch\t" << TORCH_VERSION_MAJOR << '.' << TORCH_VERSION_MINOR
            << '\n';
  return 0;
}
