// A project that calls an operator through torch._dynamo.disallow_in_graph
// (torchcodec wraps its encoders so): the warning stays (direct calls of the
// operator are dropped, opcheck fails) and a note says where the mark is and
// what calls through it do, as measured (python_fake_disallowed in
// docs/ground-truth-registrations.json); the headline's class says the
// silence is for direct torch.ops calls. An operator without the mark gets
// no such note and a plain class.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TORCH_TIDY_PROJECT_ROOT=auto TORCH_TIDY_CACHE=%t/cache %clang_tidy --load=%torch_tidy_module \
// RUN:   -checks='-*,torch-op-undeclared-mutation' \
// RUN:   %S/Inputs/disallow-project/csrc/ops.cpp -- -std=c++17 -isystem %mock_include > %t/out 2>&1
// RUN: FileCheck %s --implicit-check-not=warning: --implicit-check-not=disallow_in_graph < %t/out
//
// CHECK: ops.cpp:8:9: warning: operator 'codec::encode_to_file' returns nothing and its schema declares no argument mutable: its calls vanish under torch.compile (silent for direct torch.ops calls; calls through its torch._dynamo.disallow_in_graph wrapper break the graph and run)
// CHECK: ops.cpp:8:9: note: the fake kernel of 'codec::encode_to_file' is registered in {{.*}}ops.py:9 (torch.library.register_fake)
// CHECK: ops.cpp:8:9: note: 'codec::encode_to_file' is marked torch._dynamo.disallow_in_graph in {{.*}}ops.py:4: calls through what that mark returns break the graph and run, keeping what the kernel does (fullgraph=True fails on them); calls of torch.ops.codec.encode_to_file itself are the ones this warning is about (measured on torch 2.8.0 and 2.15.0)
// CHECK: ops.cpp:9:9: warning: operator 'codec::encode_direct' returns nothing and its schema declares no argument mutable: its calls vanish under torch.compile (silent):
// CHECK: ops.cpp:9:9: note: the fake kernel of 'codec::encode_direct' is registered in {{.*}}ops.py:14 (torch.library.register_fake)
