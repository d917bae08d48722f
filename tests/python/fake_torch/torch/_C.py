"""torch._C of the stand-in: the C++ ABI PyTorch was built with."""

_GLIBCXX_USE_CXX11_ABI = True
