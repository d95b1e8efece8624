/*
 * A symmetric residue, for the Ozaki scheme's INT8 planes (rung 22's split
 * in 22_ozaki_int8.cu, and rung 20's products built with RESIDUES).
 */
#ifndef KL_RESIDUE_CUH
#define KL_RESIDUE_CUH

/* v mod p as a symmetric residue: in [-(p-1)/2, (p-1)/2] for odd p, [-128, 127] for 256. */
template <typename I> static __device__ __forceinline__ int symmetric(I v, int p)
{
    int r = (int)(v % p); /* in (-p, p), of v's sign */
    if (r > (p - 1) / 2)
        r -= p;
    else if (r < -(p / 2))
        r += p;
    return r;
}

#endif /* KL_RESIDUE_CUH */
