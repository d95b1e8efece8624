/*
 * A rowdot kernel of your own: r[y] = f * sum_k v[k] * M1[y][k] * M2[y][k].
 * Run it beside the ladder:  kladder rowdot --kernel rowdot.cl
 * The interface (docs/KERNELS.md): M1 and M2 are row-major Y x D, v has D
 * elements, r has Y; T is float or double (--type), set by kladder.
 *
 * kladder: workload rowdot
 * kladder: summary template: one work-item per row
 * kladder: global round_up(Y, WG)
 * kladder: local WG
 * kladder: param WG 64 1..1024 -- work-group size
 */
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y >= Y) /* the global size is Y rounded up to a whole work-group */
        return;
    T sum = 0;
    for (int k = 0; k < D; k++)
        sum += v[k] * M1[(size_t)y * D + k] * M2[(size_t)y * D + k];
    r[y] = f * sum;
}
