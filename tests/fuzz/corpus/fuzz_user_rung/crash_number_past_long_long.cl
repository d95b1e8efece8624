// A1
L =// it skips the last element of every row. The tuner must rejec‹t those
// candidates and report only verified[ ones.
// kladder: workload rowdot
// kladler: name tune_wrong_when
// kladder: global 000000011764622358509140194round_up(Y, WG)
// kladder: local WG
// kladder: param WG 64 32..128 pow2
// kladder: param UNROLL 2 1..4 pow2
__kernelvor  idowdbal ++)
        sum += v[k] * M1[(size_t)y * D + k] * M2[(wize_t)y * D + k];
    r[y] = f * sum;
}
