# Sourced by the test scripts: the default device's facts from `kladder
# devices` (OpenCL "Device P:D" or CUDA "Device cuda:N" sections, whichever
# "Default device:" names), one fact per line in $facts (empty if none).
#   device_facts KLADDER   fills $facts
#   fact LABEL             the last word of the fact starting with LABEL
#   bytes_of LABEL         the byte count of a size fact ("... (N B)")
device_facts() {
    facts=$("$1" devices 2>/dev/null | awk '
        /^ *Device ([0-9]+|cuda):[0-9]+/ {cur = $2; next}
        /^Default device:/ {def = $3; next}
        /^Platform / {cur = ""; next}
        cur != "" {sub(/^ +/, ""); txt[cur] = txt[cur] $0 "\n"}
        END {printf "%s", txt[def]}')
}
fact() { awk -v k="$1" 'index($0, k) == 1 {print $NF; exit}' <<<"$facts"; }
bytes_of() { sed -n "s/^$1  .*(\([0-9]*\) B)\$/\1/p" <<<"$facts" | head -n 1; }
