/*
 * Peak: launch latency. An empty kernel: the host times many back-to-back
 * launches (and launch + finish round trips) of it.
 *
 * Computes   nothing.
 * Geometry:  any (the host normally launches one work-group of one
 *            work-item, or a small grid).
 * Parameter: unused -- present only so that every backend's empty kernel
 *            takes one argument and the host can set it uniformly; the
 *            kernel never touches it (it may be any valid buffer).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
__kernel void empty(__global int *unused) {}
