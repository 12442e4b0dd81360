"""A stand-in for the few torch calls tilecheck.Kernel and KernelOperands.to_torch make, so that their
handling of formats and buffers runs on a CPU machine without torch (test_kernel_formats.py). A tensor
holds a NumPy array and a made-up device address, 256-byte aligned and never dereferenced: the ABI 2
test library only records the pointers it is given, and at() finds the tensor behind one."""
from types import SimpleNamespace

import numpy as np


class FakeTensor:
    def __init__(self, torch, array, dtype, device="cpu"):
        self.array, self.dtype, self.device = array, dtype, device
        self._torch = torch
        self._address = torch.register(self)

    @property
    def shape(self):
        return tuple(self.array.shape)

    @property
    def is_cuda(self):
        return self.device.startswith("cuda")

    def is_contiguous(self):
        return self.array.flags.c_contiguous

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def data_ptr(self):
        return self._address

    def view(self, dtype):  # the same bits as another dtype of the same size
        return FakeTensor(self._torch, self.array.view(FakeTorch.NUMPY[dtype]), dtype, self.device)

    def to(self, device):
        return FakeTensor(self._torch, self.array.copy(), self.dtype, str(device))


class FakeTorch:
    float16, bfloat16, int16, int32, uint8 = ("torch.float16", "torch.bfloat16", "torch.int16", "torch.int32",
                                              "torch.uint8")
    NUMPY = {float16: np.float16, bfloat16: np.uint16, int16: np.int16, int32: np.int32, uint8: np.uint8}  # bf16: bits
    Tensor = FakeTensor

    def __init__(self):
        self._tensors = {}
        self._next = 0x7F0000000000
        self.cuda = SimpleNamespace(current_stream=lambda device: SimpleNamespace(cuda_stream=0))

    def register(self, tensor):
        address = self._next
        self._next += 256 * (tensor.array.nbytes // 256 + 2)
        self._tensors[address] = tensor
        return address

    def at(self, address):
        return self._tensors[address]

    def dtype_of(self, name):
        return {"fp16": self.float16, "bf16": self.bfloat16}[name]

    def from_numpy(self, a):
        dtype = {np.dtype(np.int16): self.int16, np.dtype(np.int32): self.int32}[a.dtype]
        return FakeTensor(self, a, dtype)

    def empty(self, shape, dtype, device):
        return FakeTensor(self, np.zeros(shape, self.NUMPY[dtype]), dtype, str(device))

    def zeros(self, size, dtype, device):
        return FakeTensor(self, np.zeros(size, self.NUMPY[dtype]), dtype, str(device))
