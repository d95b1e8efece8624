/*
 * Peak: dependent-load latency, by a pointer chase. One work-item follows
 * `steps` links of a cycle through the nodes of a buffer, each load's
 * address the value the previous load returned.
 *
 * Computes   p = state[0];  steps times: p = next[p];  state[0] = p.
 *            next[] holds, at the first word of every node, the word index
 *            of the node after it on one random cycle through all the nodes
 *            (the host links them with Sattolo's algorithm); nodes are one
 *            cache line apart, so every step is a load from another line.
 * Exactness: the host counts every step of every launch (warm-ups
 *            included); after a row it reads state[0] and checks that it is
 *            exactly the node that many steps along the cycle from where it
 *            began. A kernel that skipped or repeated a step ends elsewhere.
 * Why:       each launch starts where the previous one stopped (state[0]),
 *            so successive launches go on around the cycle and the working
 *            set is the whole buffer, not the first nodes again. The loads
 *            depend on each other: the time per step is the latency of the
 *            level that holds the buffer. The host times two step counts and
 *            takes the difference, which cancels the launch's overhead.
 *            next is not restrict: the load stays an ordinary global load
 *            (not the read-only path a const restrict pointer may take).
 * Geometry:  one work-item (global size 1, local size 1).
 * Arguments: next, state (one uint: a word index of next), steps (the host
 *            calibrates it without building again).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
__kernel void chase(const __global uint *next, __global uint *state, const int steps)
{
    uint p = state[0];
    for (int s = 0; s < steps; s++)
        p = next[p];
    state[0] = p;
}
