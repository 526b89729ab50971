import torch

key = "Meta" if torch.__version__ >= "2" else "CPU"
torch.library.impl("kl::opaque", key)(lambda a, d: None)
