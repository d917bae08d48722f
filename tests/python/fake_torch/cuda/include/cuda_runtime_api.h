/* The stand-in's CUDA runtime headers: mrctx's allocator helper looks for
 * this file to know the CUDA headers are there; the stand-in's PyTorch
 * headers declare what they use of it themselves. */
