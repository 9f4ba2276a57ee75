#!/usr/bin/env bash
# The GPU checks of issue 16 in one script, for a machine with an NVIDIA GPU and no display (the device tool's
# H200 or H100). The whole run is cut at DEVICE_CHECK_BUDGET_S (420 s by default; every command's time box
# also ends there), under the tool's 540 s limit; estimated at 6-7.5 minutes when nothing hangs. Two steps:
#
#   1. Here, on a machine with the Debian packages and network (no GPU needed), once:
#        tests/gpu/device_check.sh --prepare
#      downloads the Vulkan/EGL loader packages into .gl/ (the device README's recipe) and the build
#      dependencies the device image lacks into .devdeps/debs (Eigen, TBB, TetGen, assimp, nlohmann-json, CLI11,
#      GoogleTest, Google Benchmark: for the fallback build there), and builds every binary the run needs
#      (baseline x86-64, CUDA sm_90 + PTX, Release, the app included) into .devdeps/bin with the shared
#      libraries they need that a CUDA image lacks in .devdeps/lib, packed as .devdeps/prebuilt.tar.xz (unpacked
#      by the run). Both folders are git-ignored: name them in
#      the run's carry. Building there instead costs minutes of the lease on the CUDA translation units.
#   2. On the device machine, from the repository root:
#        run(command="tests/gpu/device_check.sh", carry=[".devdeps", ".gl"], timeout_s=540)
#      uses the prebuilt binaries where they run there (else unpacks the packages into /opt/vbd-deps -- never
#      into /, except the loaders as the README says -- and builds Release with CUDA for sm_90 + PTX: engine,
#      GPU tests, bench_gpu, vbdlab without the GUI), runs
#        - the GPU tests: CPU/GPU parity over every built-in scene the device step supports (test_gpu_cuda),
#          the host-pipeline and backend tests, the older sweep parity test
#        - vbdlab sim --backend cuda on cube_drop, cloth_drape, coarse_bar and soft_vs_rigid (the World path,
#          metrics written; cloth self-collision; the coarse correction on the host; a coupled step), against
#          --backend cpu
#        - the render check: the portable vbdlab renders the same frame with --backend cpu and cuda; the two
#          PNGs compared pixel-wise (Vulkan on the GPU; VK_DRIVER_FILES set to the NVIDIA ICD if the loader
#          finds no driver)
#        - the residual heat map check: beam_sag rendered with --field residual on both backends, the
#          heat-mapped pixels compared (the device step downloads the field while it is shown)
#        - the interop render check on cube_drop and rigid_pyramid (body instances): --backend cuda with
#          --vertices cpu and with --vertices interop (the CUDA
#          kernel writes the Vulkan vertex buffer), 30 frames compared pixel-wise, and the host time per frame
#          between solver and renderer on both paths; bench_interop (the record kernels against the CPU fill);
#          bench_snapshot BM_SimFrameDevice (the simulation thread's save and snapshot after each window step)
#          and BM_SimFramePileDevice (the same for the 10,000-box pile, contacts on the CPU or the device)
#        - the app's window frames without a display (vbdlab --headless, 60 frames of cube_drop) on the CUDA
#          and the CPU backend: the vertex-buffer path and the host time per frame outside solver and renderer;
#          a 30-frame take recorded from the view at 640x360 on CUDA (the particles the window read); a hover
#          over the falling cube on CUDA (the readout's ray cast on the device: no snapshot read for it); a lost
#          device mid-take on CUDA (no hang in the interop's teardown, the take kept, a new device with the
#          interop, the run's end with exit code 1 for its gap)
#        - bench_gpu (soft step at ~100k / ~700k / ~2M tets, 10 / 100 / 120 iterations, lanes per vertex,
#          the tet layouts (arrays, incidence and tet records), the float increment form, staged against
#          pageable copies, the rigid pile by phase, copy bandwidth)
#        - Nsight Compute on the sweep kernel at 700k tets (float and double; ncu.txt)
#      and writes into $OUT (at most 8 files, the tool's limit: add none without removing one): summary.txt,
#      summary.csv
#      (check,name,value,unit,status), bench_gpu.csv, render.png (CPU | CUDA | difference x8) or bench.png
#      when the render could not run, render_residual.png (the same for beam_sag's residual heat map), and
#      logs.txt (the tails of the build, test, render and bench logs).
# Every phase is time-boxed; a failed phase is recorded in the summary and the next one still runs. Exit code:
# 0 when every test that ran passed, 1 otherwise. Without prebuilt binaries that run there it stops after the
# setup (building on the device takes most of the lease) unless DEVICE_CHECK_ALLOW_BUILD=1. A dry run of the
# script's logic without a GPU, on an existing build: DEVICE_CHECK_BUILD=build DEVICE_CHECK_NO_BUILD=1
# OUT=/tmp/dc tests/gpu/device_check.sh
set -uo pipefail
exec </dev/null  # nothing in the run may wait for input
cd "$(dirname "$0")/../.."
ROOT=$(pwd)

ENGINE_DEBS=(googletest libgtest-dev libbenchmark-dev libbenchmark1debian libcli11-dev libeigen3-dev
  libtbb-dev libtbb12 libtbbbind-2-5 libtbbmalloc2 libhwloc15 libtet1.5 libtet1.5-dev libassimp-dev
  libassimp5 libdraco-dev libdraco7 libminizip-dev libminizip1 nlohmann-json3-dev zlib1g-dev)
GL_DEBS=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)

# Every binary the device run needs, built here once (the device's 16 cores would spend minutes of the lease on
# the CUDA translation units). They name this checkout's path (VBD_SOURCE_DIR, VBD_BINARY_DIR) for assets and
# for vbdlab: the device run links that path to its own checkout.
PREBUILT_TARGETS=(test_gpu_cuda test_gpu_host_pipeline test_gpu_backend test_cuda_parity test_gpu_interop
  test_gpu_rigid_host test_gpu_cuda_rigid test_gpu_world_device test_gpu_lazy_publish test_interop bench_gpu bench_interop
  bench_snapshot vbdlab)

prepare() {
  set -e
  mkdir -p .devdeps/debs .gl /tmp/amd64/partial
  grep -qx '/.devdeps/' .gitignore && grep -qx '/.gl/' .gitignore || {
    echo "device_check: .gitignore must ignore /.devdeps/ and /.gl/" >&2; exit 1; }
  local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update -qq
  (cd .devdeps/debs && rm -f ./*.deb && apt-get $o download "${ENGINE_DEBS[@]}")
  (cd .gl && rm -f ./*.deb && apt-get $o download "${GL_DEBS[@]}")
  # Baseline ISA (the device's CPU is not this one), CUDA for sm_90 + PTX, Release, the app included.
  [ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
  cmake -S . -B build-portable -G Ninja -DCMAKE_BUILD_TYPE=Release -DVBD_NATIVE=OFF -DVBD_WERROR=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build build-portable -j "${VBD_JOBS:-$(nproc)}" --target "${PREBUILT_TARGETS[@]}"
  rm -rf .devdeps/bin .devdeps/lib .devdeps/render && mkdir -p .devdeps/bin .devdeps/lib
  local t
  for t in "${PREBUILT_TARGETS[@]}"; do
    cp "build-portable/bin/$t" .devdeps/bin/ && strip .devdeps/bin/$t
  done
  # Their shared libraries except the C/C++ runtime (the device's own, newer) and the Vulkan/GL loaders (.gl/).
  for t in "${PREBUILT_TARGETS[@]}"; do ldd "build-portable/bin/$t"; done | awk '/=> \//{print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libvulkan|libGL[^/]*|libEGL|libGLX|libOpenGL|libGLdispatch)\.so' |
    while read -r lib; do cp -L "$lib" .devdeps/lib/; done
  pwd >.devdeps/source_dir
  # Packed: 50 MB of binaries and libraries are 9 MB as xz, and the tool carries 64 MB in all.
  tar -C .devdeps -cJf .devdeps/prebuilt.tar.xz bin lib && rm -rf .devdeps/bin .devdeps/lib
  du -sh .devdeps .gl
  echo "device_check: prepared; run on the device with carry [.devdeps, .gl]"
}

if [ "${1:-}" = "--prepare" ]; then prepare; exit $?; fi

# ---- on the device machine --------------------------------------------------------------------------------
OUT=${OUT:-$ROOT/out/device_check}
LOGS=/tmp/vbd_device_logs
rm -rf "$LOGS"
mkdir -p "$OUT" "$LOGS"
T0=$SECONDS
SUMMARY="$OUT/summary.txt"
CSV="$OUT/summary.csv"
echo "check,name,value,unit,status" >"$CSV"
: >"$SUMMARY"
FAILED=0
say() { echo "$*" | tee -a "$SUMMARY"; }
row() { echo "$1,$2,$3,$4,$5" >>"$CSV"; }
phase() { say ""; say "== $1 ($((SECONDS - T0)) s)"; }

phase "machine"
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
GPU=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
say "gpu: ${GPU:-none found by nvidia-smi}"
row machine gpu "\"${GPU:-none}\"" "" info
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
say "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
say "cpu: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# Our binaries run with the libraries --prepare brought (.devdeps/lib) ahead of the system's; python3 and the
# system tools do not see them (vt = time-boxed run of one of ours).
RUNLIB="$ROOT/.devdeps/lib"
# Every run is cut at its own box and at the run's deadline (DEVICE_CHECK_BUDGET_S after the start, 420 s by
# default: the tool's limit is 540 s and a killed run loses logs.txt); a run that ignores SIGTERM is killed 5 s
# later. A run past the deadline is skipped, named on stderr, with status 124.
DEADLINE=$((T0 + ${DEVICE_CHECK_BUDGET_S:-420}))
vt() {
  local s=$1 left=$((DEADLINE - SECONDS))
  shift
  if [ $left -lt 5 ]; then
    echo "skipped (the run's budget is spent): $*" >&2
    return 124
  fi
  [ "$s" -gt $left ] && s=$left
  timeout -k 5 "$s" env LD_LIBRARY_PATH="$RUNLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}
RVBD=.devdeps/bin/vbdlab  # the prebuilt vbdlab with the renderer (the fallback build has no app)

phase "prebuilt binaries (tests/gpu/device_check.sh --prepare)"
BUILD=${DEVICE_CHECK_BUILD:-build-device}  # DEVICE_CHECK_BUILD=build DEVICE_CHECK_NO_BUILD=1: a dry run
PREBUILT=0
[ -f .devdeps/prebuilt.tar.xz ] && [ ! -d .devdeps/bin ] && tar -C .devdeps -xJf .devdeps/prebuilt.tar.xz
if [ -z "${DEVICE_CHECK_NO_BUILD:-}" ] && [ -x .devdeps/bin/test_gpu_cuda ] && [ -f .devdeps/source_dir ]; then
  SRC=$(cat .devdeps/source_dir)
  # The binaries read assets under VBD_SOURCE_DIR and start VBD_BINARY_DIR/bin/vbdlab: link both here.
  if [ "$SRC" != "$ROOT" ] && [ ! -e "$SRC" ]; then mkdir -p "$(dirname "$SRC")" && ln -s "$ROOT" "$SRC"; fi
  [ -e build-portable/bin ] || { mkdir -p build-portable && ln -s "$ROOT/.devdeps/bin" build-portable/bin; }
  missing=$(vt 20 ldd .devdeps/bin/test_gpu_cuda 2>&1 | grep 'not found')
  if [ -z "$missing" ] && vt 60 .devdeps/bin/test_gpu_backend --gtest_list_tests >"$LOGS/prebuilt.log" 2>&1; then
    PREBUILT=1
    BUILD=build-portable
    say "prebuilt binaries run here (source dir $SRC -> $ROOT)"
  else
    say "prebuilt binaries do not run here: ${missing:-$(tail -3 "$LOGS/prebuilt.log")}; building"
  fi
else
  say "no prebuilt binaries (.devdeps/bin): building"
fi
row build prebuilt "$PREBUILT" "" info

phase "dependencies"
PREFIX=/opt/vbd-deps
if [ $PREBUILT = 1 ]; then
  say "engine packages: not needed (prebuilt)"
elif [ -d .devdeps/debs ]; then
  mkdir -p "$PREFIX"
  for f in .devdeps/debs/*.deb; do dpkg -x "$f" "$PREFIX"; done
  python3 tests/gpu/relocate_prefix.py "$PREFIX" | tee -a "$SUMMARY"  # their CMake files name /usr/...
  export CMAKE_PREFIX_PATH="$PREFIX/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  RUNLIB="$RUNLIB:$PREFIX/usr/lib/x86_64-linux-gnu"
  export CPATH="$PREFIX/usr/include${CPATH:+:$CPATH}"
  say "unpacked $(ls .devdeps/debs/*.deb | wc -l) packages into $PREFIX"
else
  say "no .devdeps/debs: using the system's packages (run --prepare here and carry .devdeps if the build fails)"
fi
if ! grep -q 'libvulkan.so.1' <(ldconfig -p); then  # not a pipe: grep -q would SIGPIPE ldconfig (pipefail)
  if [ -d .gl ]; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    say "Vulkan/EGL loaders unpacked from .gl"
  else
    say "no Vulkan loader and no .gl folder: the render check will not run"
  fi
fi
ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$ICD" ] && ! ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json >/dev/null 2>&1; then
  export VK_DRIVER_FILES="$ICD"
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  say "VK_DRIVER_FILES=$ICD"
fi

phase "build (Release, CUDA sm_90 + PTX)"
BUILD_OK=1
TARGETS=(test_gpu_cuda test_gpu_host_pipeline test_gpu_backend test_cuda_parity test_gpu_interop test_gpu_rigid_host
  test_gpu_cuda_rigid test_gpu_world_device test_gpu_lazy_publish bench_gpu bench_interop bench_snapshot vbdlab)
if [ -n "${DEVICE_CHECK_NO_BUILD:-}" ] || [ $PREBUILT = 1 ]; then
  say "build: skipped ($([ $PREBUILT = 1 ] && echo prebuilt || echo DEVICE_CHECK_NO_BUILD)), using $BUILD"
elif [ -z "${DEVICE_CHECK_ALLOW_BUILD:-}" ]; then
  # Configuring and building the CUDA units here takes most of the lease (600 s and more): only when asked.
  BUILD_OK=0
  FAILED=1
  say "build: not attempted (no prebuilt binaries that run here; DEVICE_CHECK_ALLOW_BUILD=1 builds on the device)"
elif ! timeout 300 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DVBD_BUILD_APP=OFF -DVBD_WERROR=OFF >"$LOGS/build.log" 2>&1 ||
  ! timeout 300 cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}" >>"$LOGS/build.log" 2>&1; then
  BUILD_OK=0
  FAILED=1
  tail -40 "$LOGS/build.log" | tee -a "$SUMMARY"
fi
say "build: $([ $BUILD_OK = 1 ] && echo ok || echo FAILED) in $((SECONDS - T0)) s"
row build release "$BUILD_OK" "" "$([ $BUILD_OK = 1 ] && echo ok || echo failed)"
grep -q 'sm_90' <(cuobjdump --list-elf "$BUILD/bin/test_gpu_cuda" 2>/dev/null) && say "sm_90 SASS present"

run_test() {  # name, timeout[, a suffix for its log and summary line]
  local t=$1 log="$LOGS/test_$1${3:-}.log"
  vt "$2" "$BUILD/bin/$t" --gtest_color=no >"$log" 2>&1
  local rc=$?
  local pass skip fail
  pass=$(grep -c '^\[       OK \]' "$log")
  skip=$(grep -c '^\[  SKIPPED \]' "$log")
  fail=$(grep -c '^\[  FAILED  \].*ms)' "$log")
    say "$t${3:-}: rc $rc, $pass passed, $fail failed, $skip skipped lines"
  row test "$t${3:-}" "$pass/$fail/$skip" "passed/failed/skipped" "$([ $rc = 0 ] && echo ok || echo failed)"
  [ $rc = 0 ] || { FAILED=1; grep -B2 -A6 'Failure' "$log" | head -40 | tee -a "$SUMMARY"; }
  # The first test that fails with a CUDA error or a crash is run again under compute-sanitizer (memcheck),
  # alone: the kernel and the address of a bad access, in the summary (one per run: it is slow).
  # Only for a crash or a CUDA error (not any log that says "CUDA"), and only with a test to name: a whole
  # binary under memcheck would take the box.
  local first
  first=$(sed -n 's/^\[ *\(FAILED\|RUN\) *\] \([A-Za-z0-9_./]*\).*/\2/p' "$log" | tail -1)
  if [ $rc != 0 ] && [ -z "${SANITIZED:-}" ] && [ -n "$first" ] && command -v compute-sanitizer >/dev/null &&
    { [ $rc -ge 128 ] || grep -q 'cudaError' "$log"; }; then
    SANITIZED=1
    say "compute-sanitizer memcheck on $t --gtest_filter=$first:"
    vt 60 compute-sanitizer --tool memcheck --print-limit 5 "$BUILD/bin/$t" --gtest_filter="$first" \
      >"$LOGS/sanitizer_$t.log" 2>&1
    grep -E '=========|Failure|error' "$LOGS/sanitizer_$t.log" | head -30 | tee -a "$SUMMARY"
  fi
}

# One bench_gpu family into $LOGS/NAME.csv, its medians into the summary and the CSV rows.
bench_family() {
  local filter=$1 name=$2 limit=$3
  vt "$limit" "$BUILD/bin/bench_gpu" --benchmark_filter="$filter" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=csv >"$LOGS/$name.csv" 2>"$LOGS/$name.err"
  say "bench_gpu $filter: rc $?"
  head -1 "$LOGS/$name.csv" | tee -a "$SUMMARY"
  grep '_median' "$LOGS/$name.csv" | tee -a "$SUMMARY" |
    awk -F, '{printf "bench,%s,%s,ms,measured\n", $1, $3}' >>"$CSV"
}

if [ $BUILD_OK = 1 ]; then
  phase "GPU tests"
  run_test test_gpu_backend 60
  run_test test_gpu_host_pipeline 120
  run_test test_cuda_parity 60
  run_test test_gpu_cuda 180
  run_test test_gpu_interop 60  # interop: UUID matching, the record kernel on the host, import refusal
  run_test test_gpu_world_device 120  # the World's device path: coupled steps, the coarse correction
  run_test test_gpu_lazy_publish 120  # the lazy publish: frame measures and timeline saves on the device
  # The renderer's interop tests (tests/render: the exported buffers, the window's slot path without a window).
  if [ -x "$BUILD/bin/test_interop" ]; then run_test test_interop 120; else say "test_interop: not in this build"; fi
  grep '^  parity' "$LOGS/test_test_gpu_cuda.log" | tee -a "$SUMMARY" |
    awk '{printf "parity,%s %s,%s,m,measured\n", $2, $3, $7}' >>"$CSV"
  grep '^  collision' "$LOGS/test_test_gpu_cuda.log" | tee -a "$SUMMARY" >/dev/null
  grep '^  coarse' "$LOGS/test_test_gpu_cuda.log" | tee -a "$SUMMARY" >/dev/null
  grep '^  coupled' "$LOGS/test_test_gpu_world_device.log" | tee -a "$SUMMARY" >/dev/null
  grep '^  lazy' "$LOGS/test_test_gpu_lazy_publish.log" | tee -a "$SUMMARY" >/dev/null

  # ---- rigid bodies on the device (issue 16, rigid part): parity and the 10,000-box pile --------------------
  phase "rigid bodies: host-executor and CUDA parity, BM_GpuRigidPile"
  if [ -z "${DEVICE_CHECK_NO_BUILD:-}" ] && [ $PREBUILT = 0 ] &&
    ! timeout 240 cmake --build "$BUILD" -j "$(nproc)" --target test_gpu_rigid_host test_gpu_cuda_rigid \
      >>"$LOGS/build.log" 2>&1; then
    say "rigid tests: build FAILED"
    row build rigid_tests 0 "" failed
    FAILED=1
  else
    run_test test_gpu_rigid_host 180
    run_test test_gpu_cuda_rigid 120
    grep '^  parity' "$LOGS/test_test_gpu_cuda_rigid.log" | tee -a "$SUMMARY" |
      awk '{n = $0; sub(/^  parity /, "", n); sub(/:.*/, "", n); gsub(/,/, "", n); gsub(/ +/, "_", n)
            v = ""; for (i = 1; i < NF; i++) if ($i == "|dx|") { v = $(i + 1); break }
            printf "parity_rigid,%s,%s,m,measured\n", n, v}' >>"$CSV"
    # The device narrow phase against the CPU's manifolds: pairs decided otherwise (ties) and the worst point.
    grep '^  narrow phase' "$LOGS/test_test_gpu_cuda_rigid.log" | tee -a "$SUMMARY" |
      awk '{n = $3; sub(/:$/, "", n); printf "narrow_phase,%s,%s,rel,measured\n", n, $NF}' >>"$CSV"
    # The device broad phase against the CPU's list (equal, pair for pair) and its step.
    grep -E '^  (broad phase|device broad phase)' "$LOGS/test_test_gpu_cuda_rigid.log" | tee -a "$SUMMARY"
    # The staged transfers (gpu/staged_copies.h, off by default until measured here): the CUDA parity tests
    # of both steps again with them on (the soft step's publish, seeding and tolerance reads; the rigid step's
    # per-step contact uploads and downloads).
    export VBD_CUDA_STAGED=1
    run_test test_gpu_cuda 180 _staged
    run_test test_gpu_cuda_rigid 120 _staged
    unset VBD_CUDA_STAGED
  fi
  # The World path: a rigid-only scene with --backend cuda (its line, its bodies against --backend cpu), and
  # with the narrow phase and contact matching on the device (cuda_dc: VBD_CUDA_DEVICE_CONTACTS=1).
  for b in cpu cuda cuda_dc; do
    rm -rf "/tmp/vbd_rsim_$b"
    vt 120 env VBD_CUDA_DEVICE_CONTACTS=$([ $b = cuda_dc ] && echo 1 || echo 0) \
      "$BUILD/bin/vbdlab" sim assets/scenes/rigid_pyramid.json --frames 60 --backend "${b%_dc}" \
      --out "/tmp/vbd_rsim_$b" 2>"/tmp/vbd_rsim_$b.err"
    rc=$?
    say "rigid sim --backend $b: rc $rc : $(grep -m1 'backend' /tmp/vbd_rsim_$b.err)"
    row sim "rigid_pyramid_backend_$b" "$rc" rc "$([ $rc = 0 ] && echo ok || echo failed)"
    [ $rc = 0 ] || FAILED=1
  done
  if [ -f /tmp/vbd_rsim_cpu/final_state.json ] && [ -f /tmp/vbd_rsim_cuda/final_state.json ]; then
    python3 - <<'EOF2' | tee -a "$SUMMARY"
import json, math, os
a = json.load(open('/tmp/vbd_rsim_cpu/final_state.json'))['bodies']
for run in ('cuda', 'cuda_dc'):
    f = f'/tmp/vbd_rsim_{run}/final_state.json'
    if not os.path.exists(f):
        continue
    b = json.load(open(f))['bodies']
    d = max(math.dist(p['position'], q['position']) for p, q in zip(a, b))
    print(f"rigid sim pyramid 60 frames: max |x_cpu - x_{run}| = {d:.3e} m over {len(a)} bodies")
    open(f'/tmp/vbd_rsim_diff_{run}', 'w').write(f"{d:.6e}")
EOF2
    row sim rigid_pyramid_60_frames "$(cat /tmp/vbd_rsim_diff_cuda 2>/dev/null)" m measured
    row sim rigid_pyramid_60_frames_device_contacts "$(cat /tmp/vbd_rsim_diff_cuda_dc 2>/dev/null)" m measured
    for b in cpu cuda cuda_dc; do
      awk -F, -v b=$b 'NR==1 {for (i = 1; i <= NF; i++) if ($i == "step_ms") c = i} NR>1 && c {s+=$c; n++} END {if (n) printf "rigid sim %s: mean step_ms %.3f over %d frames\n", b, s/n, n}' \
        /tmp/vbd_rsim_$b/metrics.csv | tee -a "$SUMMARY"
    done
  fi
  # Each family in its own CSV: the reporter aborts when a later benchmark adds a counter.
  bench_family BM_GpuRigidPile bench_rigid 180
  bench_family BM_GpuRigidNarrow bench_narrow 60   # the pile's narrow phase on the device
  bench_family BM_GpuRigidBroad bench_broad 60     # the pile's broad phase on the device against the CPU's
  bench_family BM_GpuClothStep bench_cloth 90       # cloth self-collision: detected on the host, swept there
  # ---- end of the rigid block ------------------------------------------------------------------------------

  phase "vbdlab sim --backend cuda (the World path)"
  # cube_drop (tets on the ground), cloth_drape (cloth self-collision: detected on the host, swept on the
  # device), coarse_bar (the coarse correction on the host between the device's sweeps) and soft_vs_rigid (a
  # coupled step: the particles on the device, the bodies on the CPU), 60 frames on each backend, final
  # positions compared.
  # cube_drop also with the tet records (cuda_tr: VBD_CUDA_TET_LAYOUT=tet, gpu/tet_records.h).
  for scene in cube_drop cloth_drape coarse_bar soft_vs_rigid; do
    backends="cpu cuda"
    [ $scene = cube_drop ] && backends="cpu cuda cuda_tr"
    for b in $backends; do
      rm -rf "/tmp/vbd_sim_${scene}_$b"
      vt 120 env VBD_CUDA_TET_LAYOUT=$([ $b = cuda_tr ] && echo tet || echo arrays) \
        "$BUILD/bin/vbdlab" sim "assets/scenes/$scene.json" --frames 60 --backend ${b%_tr} \
        --out "/tmp/vbd_sim_${scene}_$b" 2>"/tmp/vbd_sim_${scene}_$b.err"
      rc=$?
      say "sim $scene --backend $b: rc $rc : $(grep -m1 'backend' /tmp/vbd_sim_${scene}_$b.err)"
      row sim "${scene}_backend_$b" "$rc" rc "$([ $rc = 0 ] && echo ok || echo failed)"
      [ $rc = 0 ] || FAILED=1
    done
    rm -f "/tmp/vbd_sim_diff_${scene}" "/tmp/vbd_sim_diff_${scene}_tr"  # never an earlier run's (a warm machine)
    if [ -f "/tmp/vbd_sim_${scene}_cpu/final_state.json" ] && [ -f "/tmp/vbd_sim_${scene}_cuda/final_state.json" ]; then
      SCENE=$scene python3 - <<'EOF' | tee -a "$SUMMARY"
import json, math, os
s = os.environ['SCENE']
a = json.load(open(f'/tmp/vbd_sim_{s}_cpu/final_state.json'))['particles']
for run in ('cuda', 'cuda_tr'):
    path = f'/tmp/vbd_sim_{s}_{run}/final_state.json'
    if not os.path.exists(path):
        continue
    b = json.load(open(path))['particles']
    d = max(math.dist(p, q) for p, q in zip(a, b))
    print(f"sim {s} 60 frames: max |x_cpu - x_{run}| = {d:.3e} m over {len(a)} particles")
    open(f'/tmp/vbd_sim_diff_{s}' + ('' if run == 'cuda' else '_tr'), 'w').write(f"{d:.6e}")
EOF
      row sim "${scene}_60_frames" "$(cat /tmp/vbd_sim_diff_$scene 2>/dev/null)" m measured
      if [ -f "/tmp/vbd_sim_diff_${scene}_tr" ]; then
        row sim "${scene}_60_frames_tet_records" "$(cat /tmp/vbd_sim_diff_${scene}_tr)" m measured
      fi
      for b in $backends; do
        awk -F, -v b=$b -v s=$scene 'NR==1 {for (i = 1; i <= NF; i++) if ($i == "step_ms") c = i} NR>1 && c {t+=$c; n++} END {if (n) printf "sim %s %s: mean step_ms %.3f over %d frames\n", s, b, t/n, n}' \
          "/tmp/vbd_sim_${scene}_$b/metrics.csv" | tee -a "$SUMMARY"
      done
    fi
  done
fi

phase "render check (CPU vs CUDA backend, same frame)"
RENDER_OK=0
if [ -x "$RVBD" ]; then
  for b in cpu cuda; do
    rm -rf "/tmp/vbd_render_$b"  # a warm machine keeps /tmp: never compare an earlier run's frames
    vt 120 "$RVBD" render \
      assets/scenes/cube_drop.json --frames 30 --width 640 --height 360 --backend $b --out "/tmp/vbd_render_$b" \
      >"$LOGS/render_$b.log" 2>&1
    say "render --backend $b: rc $? $(grep -m1 backend "$LOGS/render_$b.log")"
  done
  if python3 - "$OUT" <<'EOF' | tee -a "$SUMMARY"; then RENDER_OK=1; fi
import sys, glob
import numpy as np
from PIL import Image
out = sys.argv[1]
fa = sorted(glob.glob('/tmp/vbd_render_cpu/*.png'))
fb = sorted(glob.glob('/tmp/vbd_render_cuda/*.png'))
if not fa or len(fa) != len(fb):
    print("render: frames missing"); sys.exit(1)
a = np.asarray(Image.open(fa[-1]).convert('RGB')).astype(np.int16)
b = np.asarray(Image.open(fb[-1]).convert('RGB')).astype(np.int16)
d = np.abs(a - b)
frac = float((d.max(axis=2) > 8).mean())
print(f"render frame {len(fa)}: max channel diff {int(d.max())}, pixels off by > 8: {100 * frac:.3f}%")
img = np.concatenate([a, b, np.clip(d * 8, 0, 255)], axis=1).astype(np.uint8)
Image.fromarray(img).save(f"{out}/render.png")
open('/tmp/vbd_render_diff', 'w').write(f"{frac:.6f}")
# Tolerance: the two backends' positions differ by FMA roundings (test_gpu_cuda), far below a pixel; edge
# pixels may flip. 0.5% of pixels is the bound.
sys.exit(0 if frac < 0.005 else 1)
EOF
  row render cube_drop_frame30_pixels_off "$(cat /tmp/vbd_render_diff 2>/dev/null)" fraction \
    "$([ $RENDER_OK = 1 ] && echo ok || echo failed)"
  [ $RENDER_OK = 1 ] || FAILED=1
else
  say "render: not run (no .devdeps/bin/vbdlab: run --prepare here and carry .devdeps)"
  row render cube_drop "" "" not_run
fi

# ---- the residual heat map (docs/gpu.md: the device step downloads |grad_i G| while the map is shown) --------
# beam_sag rendered with --field residual on both backends (and once without a field on the CPU: the pixels the
# heat map colours are where the two CPU frames differ). A stale or empty device field recolours the whole beam.
phase "residual heat map render check (beam_sag --field residual, CPU vs CUDA backend)"
if [ -x "$RVBD" ]; then
  for run in "cpu residual" "cuda residual" "cpu none"; do
    read -r b f <<<"$run"
    rm -rf "/tmp/vbd_field_${b}_$f" /tmp/vbd_field_diff  # a second run in one lease compares only its frames
    vt 120 "$RVBD" render \
      assets/scenes/beam_sag.json --frames 20 --width 640 --height 360 --backend "$b" --field "$f" \
      --out "/tmp/vbd_field_${b}_$f" >"$LOGS/field_${b}_$f.log" 2>&1
    rc=$?
    say "render beam_sag --backend $b --field $f: rc $rc $(grep -m1 backend "$LOGS/field_${b}_$f.log")"
    [ $rc = 0 ] || FAILED=1
  done
  if python3 - "$OUT" <<'EOF' | tee -a "$SUMMARY"; then ok=1; else ok=0; fi
import sys, glob
import numpy as np
from PIL import Image
out = sys.argv[1]
last = lambda d: sorted(glob.glob(f'/tmp/vbd_field_{d}/*.png'))
fa, fb, fn = last('cpu_residual'), last('cuda_residual'), last('cpu_none')
if not fa or len(fa) != len(fb) or len(fa) != len(fn):
    print("residual render: frames missing"); sys.exit(1)
rgb = lambda f: np.asarray(Image.open(f).convert('RGB')).astype(np.int16)
a, b, n = rgb(fa[-1]), rgb(fb[-1]), rgb(fn[-1])
heat = np.abs(a - n).max(axis=2) > 8  # the pixels the heat map colours
off = np.abs(a - b).max(axis=2) > 8
frac = float(off[heat].mean()) if heat.any() else 1.0
print(f"residual render frame {len(fa)}: {int(heat.sum())} heat-mapped pixels, "
      f"{100 * frac:.3f}% of them off by > 8 between CPU and CUDA")
img = np.concatenate([a, b, np.clip(np.abs(a - b) * 8, 0, 255)], axis=1).astype(np.uint8)
Image.fromarray(img).save(f"{out}/render_residual.png")
open('/tmp/vbd_field_diff', 'w').write(f"{frac:.6f}")
# Tolerance: positions agree to 1e-9 m (test_gpu_cuda), far below a pixel; the fields to 1e-3 relative or
# better (test_gpu_cuda ResidualFieldParity): under 1/255 of a colour on a log scale spanning decades. 2% of the
# heat-mapped pixels leaves room for edge pixels; a wrong field moves nearly all of them.
sys.exit(0 if heat.sum() > 500 and frac < 0.02 else 1)
EOF
  row render beam_sag_residual_frame20_pixels_off "$(cat /tmp/vbd_field_diff 2>/dev/null)" fraction \
    "$([ $ok = 1 ] && echo ok || echo failed)"
  [ $ok = 1 ] || FAILED=1
else
  say "residual render: not run (no .devdeps/bin/vbdlab: run --prepare here and carry .devdeps)"
  row render beam_sag_residual "" "" not_run
fi

# ---- interop (CUDA-Vulkan vertex buffer; docs/gpu.md "Interop") ----------------------------------------------
# Two scenes: cube_drop (the particle vertex records) and rigid_pyramid (a rigid-only scene: the body instance
# records, written by CUDA from the device rigid step's states; docs/gpu.md "Interop", rigid bodies).
phase "interop render check (CUDA-written vertex and instance buffers vs CPU upload, same frame)"
interop_scene() {  # $1 scene name, $2 text the interop run's vertex-buffer line must contain
  local scene=$1 need=$2 v rc ms ok
  rm -f "/tmp/vbd_interop_${scene}_diff"
  for v in cpu interop; do
    rm -rf "/tmp/vbd_interop_${scene}_$v"
    vt 120 "$RVBD" render \
      "assets/scenes/$scene.json" --frames 30 --width 640 --height 360 --backend cuda --vertices $v \
      --out "/tmp/vbd_interop_${scene}_$v" >"$LOGS/interop_${scene}_$v.log" 2>&1
    rc=$?
    say "render $scene --backend cuda --vertices $v: rc $rc; $(grep -m1 'vertex buffer' "$LOGS/interop_${scene}_$v.log")"
    ms=$(sed -n 's/^vbdlab: scene update \([0-9.]*\) ms per frame/\1/p' "$LOGS/interop_${scene}_$v.log")
    say "  scene update (host time between solver and renderer): ${ms:-?} ms per frame (target < 0.5 with interop)"
    row interop "${scene}_update_ms_$v" "${ms}" ms "$([ $rc = 0 ] && echo measured || echo failed)"
    [ $rc = 0 ] || FAILED=1
  done
  if ! grep -q "$need" "$LOGS/interop_${scene}_interop.log"; then
    say "interop render $scene: the interop run did not take the path ('$need' not in its line)"
    FAILED=1
  fi
  # Positions are the same floats on both paths (the device state rounded to float; body poses are copied),
  # so coverage is identical; normals may differ in the last bits (FMA contraction in the kernel): a shaded
  # channel moves by <= 1/255. Bound: no channel off by more than 2 on more than 0.01% of any frame's pixels.
  if SCENE=$scene python3 - <<'EOF' | tee -a "$SUMMARY"; then ok=1; else ok=0; fi
import os, sys, glob
import numpy as np
from PIL import Image
s = os.environ['SCENE']
fa = sorted(glob.glob(f'/tmp/vbd_interop_{s}_cpu/*.png'))
fb = sorted(glob.glob(f'/tmp/vbd_interop_{s}_interop/*.png'))
if not fa or len(fa) != len(fb):
    print(f"interop render {s}: frames missing"); sys.exit(1)
worst, top = 0.0, 0
for x, y in zip(fa, fb):
    d = np.abs(np.asarray(Image.open(x).convert('RGB')).astype(np.int16) -
               np.asarray(Image.open(y).convert('RGB')).astype(np.int16))
    worst, top = max(worst, float((d.max(axis=2) > 2).mean())), max(top, int(d.max()))
print(f"interop render {s}, {len(fa)} frames: max channel diff {top}, worst frame's pixels off by > 2: {100 * worst:.4f}%")
open(f'/tmp/vbd_interop_{s}_diff', 'w').write(f"{worst:.6f}")
sys.exit(0 if worst <= 1e-4 else 1)
EOF
  row interop "${scene}_30_frames_pixels_off" "$(cat "/tmp/vbd_interop_${scene}_diff" 2>/dev/null)" fraction \
    "$([ $ok = 1 ] && echo ok || echo failed)"
  [ $ok = 1 ] || FAILED=1
}
if [ -x "$RVBD" ]; then
  interop_scene cube_drop "CUDA-Vulkan interop"
  interop_scene rigid_pyramid "rigid body instances too"
else
  say "interop render: not run (no .devdeps/bin/vbdlab: run --prepare here and carry .devdeps)"
  row interop cube_drop "" "" not_run
  row interop rigid_pyramid "" "" not_run
fi
# The window's path (docs/gpu.md "Interop", the window): the GUI with --headless (the device image has no X
# server: the same frames into images that are never shown, render/targets.h) driven by an actions file for
# 60 frames of cube_drop, on the CUDA backend (the simulation thread writes the vertex records into the
# exported slots) and on the CPU backend (the render thread uploads them). Its stderr names the vertex-buffer
# path the window took and the mean host time per frame between the simulation's snapshot and the renderer
# ("upload": the target is < 0.5 ms on the interop path).
# window_run NAME BOX SCENE ACTIONS: the headless window on SCENE driven by the ACTIONS (JSON), time-boxed at
# BOX s, its log in $LOGS/interop_window_NAME.log; its exit code.
window_run() {
  printf '%s' "$4" >"/tmp/vbd_window_actions_$1.json"
  vt "$2" "$RVBD" --headless --width 1280 --height 720 --scene "$3" \
    --actions "/tmp/vbd_window_actions_$1.json" >"$LOGS/interop_window_$1.log" 2>&1
}
# From window NAME's exit lines: the snapshots whose particles the window read (read/shown), and the
# simulation thread's own reads of the device state (World::stateFetches, fetches/frames).
window_read() { sed -n 's/.*read the particles of \([0-9]*\) of \([0-9]*\) snapshots.*/\1\/\2/p' "$LOGS/interop_window_$1.log" | tail -1; }
window_fetched() {
  sed -n 's/.*simulation (left) brought the particles to the host \([0-9]*\) times in \([0-9]*\) frames.*/\1\/\2/p' "$LOGS/interop_window_$1.log" | tail -1
}
if [ -x "$RVBD" ]; then
  for b in cuda cpu; do
    window_run "$b" 120 assets/scenes/cube_drop.json \
      '[{"speed": "max"}, {"frame": 0, "set": {"solver.backend": "'"$b"'"}}, {"frame": 60, "quit": true}]'
    rc=$?
    say "window (--headless), solver.backend = $b: rc $rc; $(grep 'window (left)' "$LOGS/interop_window_$b.log" | tail -1)"
    say "  $(grep 'mean over' "$LOGS/interop_window_$b.log" | tail -1)"
    upload=$(sed -n 's/.*upload \([0-9.]*\) ms.*/\1/p' "$LOGS/interop_window_$b.log" | tail -1)
    row interop "window_upload_ms_$b" "${upload:-?}" ms measured
    simhost=$(sed -n 's/.*(\([0-9.]*\) ms of it outside the solver).*/\1/p' "$LOGS/interop_window_$b.log" | tail -1)
    row interop "window_sim_host_ms_$b" "${simhost:-?}" ms measured
    # Snapshots whose particles the window brought to the host (the CPU upload reads every one; on the
    # interop path none should in this default view: WorldSnapshot reads them from the frame's save on use).
    read=$(window_read "$b")
    row interop "window_snapshots_read_$b" "${read:-?}" read/shown measured
    # And the simulation thread's own reads of the device state (World::stateFetches): 0 expected on CUDA.
    fetched=$(window_fetched "$b")
    row interop "window_world_fetches_$b" "${fetched:-?}" fetches/frames measured
    # A refused solver.backend leaves the run on the CPU with rc 0: on CUDA the window must name the interop.
    if [ $b = cuda ] && ! grep 'window (left)' "$LOGS/interop_window_$b.log" | tail -1 | grep -q 'CUDA-Vulkan interop'; then
      say "  the CUDA window did not take the interop path"
      rc=1
    fi
    row interop "window_actions_$b" "$rc" rc "$([ $rc = 0 ] && echo ok || echo failed)"
    [ $rc = 0 ] || FAILED=1
  done
  # A take recorded from the view at a chosen size (the offscreen capture, gui/frame.cpp renderOffscreen),
  # 30 frames on CUDA: each capture draws the interop slot the window draws (before the twenty-sixth session
  # it drew the host copy, reading every snapshot's particles). The window must still read none.
  rm -rf /tmp/vbd_take && mkdir -p /tmp/vbd_take
  window_run take 60 assets/scenes/cube_drop.json \
    '[{"speed": "max"}, {"frame": 0, "set": {"solver.backend": "cuda"}}, {"frame": 1, "record": {"capture": "view", "size": [640, 360], "format": "png", "dir": "/tmp/vbd_take"}}, {"frame": 31, "record": "stop"}, {"frame": 33, "quit": true}]'
  rc=$?
  images=$(find /tmp/vbd_take -name '*.png' | wc -l)
  read=$(window_read take)
  say "window recording a 640x360 view take on cuda: rc $rc, $images images, read the particles of ${read:-?} snapshots"
  say "  $(grep 'mean over' "$LOGS/interop_window_take.log" | tail -1)"
  row interop window_take_images "$images" png measured
  row interop window_take_snapshots_read "${read:-?}" read/shown measured
  [ "$images" -ge 30 ] || rc=1
  row interop window_take "$rc" rc "$([ $rc = 0 ] && echo ok || echo failed)"
  [ $rc = 0 ] || FAILED=1
  # The hover readout on CUDA: the actions' cursor rests on the cube's front face (where it lands) with det F shown
  # for 60 frames. The device step casts the cursor's ray where the state is (World::setSurfaceRay) and the
  # snapshots carry the hit: the window must read no snapshot's particles for it (before the twenty-seventh
  # session the pick brought every position to the host 4 times a second), nor the simulation thread fetch
  # (the first hover waits for the next frame's cast instead of casting on the host).
  window_run hover 60 assets/scenes/cube_drop.json \
    '[{"speed": "max"}, {"frame": 0, "set": {"solver.backend": "cuda"}}, {"frame": 0, "heat": "det_f"}, {"frame": 5, "cursor": [600, 440]}, {"frame": 60, "quit": true}]'
  rc=$?
  read=$(window_read hover)
  fetched=$(window_fetched hover)
  say "window hovering over the cube on cuda: rc $rc, read the particles of ${read:-?} snapshots, fetches ${fetched:-?}"
  say "  $(grep 'mean over' "$LOGS/interop_window_hover.log" | tail -1)"
  # Checked against the same window without the cursor (window_snapshots_read_cuda, above): the snapshots
  # made before the first CUDA step (the install's, the switch of backend's) are copies that count as read in
  # both; the hover must add none, and no fetch.
  # The window says how many hover readouts it cast over the positions (none expected: every one after the
  # first device step is the step's cast; the cursor comes at frame 5, after the switch to CUDA). The snapshots
  # read before the first device step vary with the run's timing by one or two (3 to 5 on the host
  # executor), so the read count is compared with a margin of 2.
  base=$(window_read cuda)
  hover_ok=0
  if [ -n "$read" ] && [ -n "$base" ] && [ "${read%%/*}" -le $((${base%%/*} + 2)) ]; then
    case "$fetched" in 0/*) hover_ok=1 ;; esac
  fi
  grep -q 'rays over the positions' "$LOGS/interop_window_hover.log" && hover_ok=0
  row interop window_hover_snapshots_read "${read:-?}" read/shown "$([ $hover_ok = 1 ] && echo ok || echo failed)"
  row interop window_hover_world_fetches "${fetched:-?}" fetches/frames "$([ $hover_ok = 1 ] && echo ok || echo failed)"
  upload=$(sed -n 's/.*upload \([0-9.]*\) ms.*/\1/p' "$LOGS/interop_window_hover.log" | tail -1)
  row interop window_hover_upload_ms "${upload:-?}" ms measured
  row interop window_hover "$rc" rc "$([ $rc = 0 ] && echo ok || echo failed)"
  [ $rc = 0 ] && [ $hover_ok = 1 ] || FAILED=1
  # The window's heat map drawn from an interop slot is that frame's own (since the twenty-eighth session the
  # simulation thread maps the frame's field into the records it writes; before, the render thread's scalars
  # of an earlier frame, which a held or paused scene kept): cube_drop held at frame 40 with det F, CUDA with
  # the interop against the CPU backend, the 3D view's pixels (test_app_device_window checks the same on the
  # host executor).
  for b in cuda cpu; do
    rm -f "/tmp/vbd_window_heat_$b.png"
    window_run "heat_$b" 60 assets/scenes/cube_drop.json \
      '[{"frame": 0, "set": {"solver.backend": "'"$b"'"}}, {"frame": 0, "heat": "det_f"}, {"frame": 40, "screenshot": "/tmp/vbd_window_heat_'"$b"'.png"}, {"frame": 41, "quit": true}]'
  done
  heat=$(python3 - <<'EOF'
try:
    import numpy as np
    from PIL import Image
    a, b = (np.asarray(Image.open(f"/tmp/vbd_window_heat_{k}.png").convert('RGB')).astype(np.int16)[0:600, 380:840]
            for k in ("cuda", "cpu"))
    print(int((np.abs(a - b).max(axis=2) > 8).sum()))
except Exception:
    print("?")
EOF
)
  say "window heat map held at frame 40, CUDA (interop) vs CPU: ${heat} view pixels off by > 8; $(grep 'window (left)' "$LOGS/interop_window_heat_cuda.log" | tail -1)"
  # Bound: FMA roundings move edge pixels only (the render check above allows 0.5% of a frame): 300 of the
  # view's 276,000. Stale scalars recoloured ~32,000 here (on the host executor).
  heat_ok=0
  [ "$heat" != "?" ] && [ "$heat" -le 300 ] &&
    grep 'window (left)' "$LOGS/interop_window_heat_cuda.log" | tail -1 | grep -q 'CUDA-Vulkan interop' && heat_ok=1
  row interop window_heat_pixels_off "$heat" pixels "$([ $heat_ok = 1 ] && echo ok || echo failed)"
  [ $heat_ok = 1 ] || FAILED=1
  # A lost device mid-take on CUDA (the actions' fault: the frame's submit fails after the interop slot's draw
  # was begun, so its renderDone is never signalled): the take so far is closed (take.json kept), the
  # interop's teardown must not hang on the frame the renderer never finished (its bounded wait is 2 s,
  # gpu/bounded_wait.h; 124: it hung), a new Vulkan device takes over with the interop made anew (since the
  # twenty-seventh session; before, the run ended there), and the run reaches its quit within 30 s, with exit
  # code 1 for the gap in its outputs. Short boxes: bench_gpu, later, gets what is left of the run's budget.
  rm -rf /tmp/vbd_take_lost && mkdir -p /tmp/vbd_take_lost
  window_run lost 30 assets/scenes/cube_drop.json \
    '[{"speed": "max"}, {"frame": 0, "set": {"solver.backend": "cuda"}}, {"frame": 1, "record": {"format": "png", "dir": "/tmp/vbd_take_lost"}}, {"frame": 12, "fault": "device_lost"}, {"frame": 40, "quit": true}]'
  rc=$?
  lost_ok=0
  renewed=$(sed -n '/a new Vulkan device/,$p' "$LOGS/interop_window_lost.log" | grep 'window (left)' | tail -1)
  [ $rc = 1 ] && [ -f /tmp/vbd_take_lost/take_001/take.json ] && echo "$renewed" | grep -q 'CUDA-Vulkan interop' &&
    grep -q 'actions done at frame 40' "$LOGS/interop_window_lost.log" && lost_ok=1
  say "window losing its device mid-take on cuda: rc $rc (1 expected: a new device, a gap in the outputs), take.json $([ -f /tmp/vbd_take_lost/take_001/take.json ] && echo kept || echo missing); $(grep -E 'rendering failed|a new Vulkan|no new Vulkan|drain|abandon' "$LOGS/interop_window_lost.log" | tail -3 | tr '\n' ' ')"
  say "  after it: ${renewed:-no window line}"
  row interop window_lost_device "$rc" rc "$([ $lost_ok = 1 ] && echo ok || echo failed)"
  [ $lost_ok = 1 ] || FAILED=1
  # The same window on the paper's tet count (cube_drop with 52^3 cells: 149k vertices, 703k tets, 120
  # iterations at h = 1/120 s), CUDA only: what the simulation thread adds to a frame outside the solver
  # (the lazy publish's metrics, the timeline's save, the snapshot) where the state is large.
  python3 - <<'EOF'
import json
d = json.load(open("assets/scenes/cube_drop.json"))
d["name"] = "Cube drop, 703k tets"
d["dt"] = 1.0 / 120.0
d["solver"]["iterations"] = 120
d["soft_bodies"][0]["cells"] = [52, 52, 52]
json.dump(d, open("/tmp/vbd_cube_703k.json", "w"))
EOF
  window_run 703k 150 /tmp/vbd_cube_703k.json \
    '[{"speed": "max"}, {"frame": 0, "set": {"solver.backend": "cuda"}}, {"frame": 40, "quit": true}]'
  rc=$?
  say "window (--headless), 703k tets on cuda: rc $rc; $(grep 'window (left)' "$LOGS/interop_window_703k.log" | tail -1)"
  say "  $(grep 'mean over' "$LOGS/interop_window_703k.log" | tail -1)"
  simhost=$(sed -n 's/.*(\([0-9.]*\) ms of it outside the solver).*/\1/p' "$LOGS/interop_window_703k.log" | tail -1)
  row interop window_sim_host_ms_703k "${simhost:-?}" ms measured
  read=$(window_read 703k)
  row interop window_snapshots_read_703k "${read:-?}" read/shown measured
  fetched=$(window_fetched 703k)
  row interop window_world_fetches_703k "${fetched:-?}" fetches/frames measured
  row interop window_actions_703k "$rc" rc "$([ $rc = 0 ] && echo ok || echo failed)"
else
  say "interop window: not run (no .devdeps/bin/vbdlab: run --prepare here and carry .devdeps)"
  row interop window_actions "" "" not_run
fi
if [ $BUILD_OK = 1 ]; then
  # The record kernels alone (22k / 149k vertices, double state) against the CPU fill they replace.
  vt 90 "$BUILD/bin/bench_interop" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_format=csv >"$LOGS/bench_interop.csv" 2>"$LOGS/bench_interop.err"
  say "bench_interop: rc $?"
  grep '_median' "$LOGS/bench_interop.csv" | cut -d, -f1,3,4 | tee -a "$SUMMARY" |
    awk -F, '{printf "interop,%s,%s,ms,measured\n", $1, $2}' >>"$CSV"
  # The simulation thread's host time after each step of the window (the save and the snapshot), on the device.
  vt 90 "$BUILD/bin/bench_snapshot" --benchmark_filter='BM_SimFrameDevice' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=csv >"$LOGS/bench_snapshot.csv" \
    2>"$LOGS/bench_snapshot.err"
  say "bench_snapshot BM_SimFrameDevice: rc $?"
  grep '_median' "$LOGS/bench_snapshot.csv" | cut -d, -f1,3,4 | tee -a "$SUMMARY" |
    awk -F, '{printf "interop,%s,%s,ms,measured\n", $1, $2}' >>"$CSV"
  grep -q '_median' "$LOGS/bench_snapshot.csv" ||  # skipped: say why (the benchmark's error message)
    say "  no medians: $(grep -o 'solver.backend[^"]*' "$LOGS/bench_snapshot.csv" | head -1)"
  # The same for the 10,000-box pile stepped on the device, contacts made on the CPU or on the device (the
  # timeline's save then keeps the records on the device): one run of 20 frames each; save_ms is the save.
  vt 60 "$BUILD/bin/bench_snapshot" --benchmark_filter='BM_SimFramePileDevice/cuda:1' \
    --benchmark_format=csv >"$LOGS/bench_snapshot_pile.csv" 2>"$LOGS/bench_snapshot_pile.err"
  say "bench_snapshot BM_SimFramePileDevice: rc $?"
  grep 'PileDevice' "$LOGS/bench_snapshot_pile.csv" | grep -v ',true,' | cut -d, -f1,3,4 | tee -a "$SUMMARY" |
    awk -F, '{printf "interop,%s,%s,ms,measured\n", $1, $2}' >>"$CSV"
  grep 'PileDevice' "$LOGS/bench_snapshot_pile.csv" | grep -qv ',true,' ||
    say "  no results: $(grep -o 'solver.backend[^"]*' "$LOGS/bench_snapshot_pile.csv" | head -1)"
fi

if [ $BUILD_OK = 1 ]; then
  phase "bench_gpu"
  left=$((DEADLINE - SECONDS - 50))  # what is left but the profiles' share (vt also cuts at the deadline)
  [ $left -lt 60 ] && left=60
  # Google Benchmark's CSV reporter aborts when a later benchmark adds a counter: the copy runs on its own.
  vt 60 "$BUILD/bin/bench_gpu" --benchmark_filter='BM_GpuCopy' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=csv >"$LOGS/bench_copy.csv" 2>"$LOGS/bench_copy.err"
  say "bench_gpu BM_GpuCopy: rc $?"
  grep '_median' "$LOGS/bench_copy.csv" | cut -d, -f1,3,11 | tee -a "$SUMMARY"
  left=$((left - 20))
  vt "$left" "$BUILD/bin/bench_gpu" --benchmark_filter='BM_GpuSoft' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_min_time=0.1 --benchmark_format=csv \
    >"$OUT/bench_gpu.csv" 2>"$LOGS/bench_gpu.err"
  say "bench_gpu: rc $? (time box ${left} s)"
  grep '_median' "$OUT/bench_gpu.csv" | cut -d, -f1,3,4 | tee -a "$SUMMARY" |
    awk -F, '{printf "bench,%s,%s,ms,measured\n", $1, $2}' >>"$CSV"
  if [ $RENDER_OK = 0 ]; then
    python3 - "$OUT" <<'EOF' || true
import sys, csv
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
rows = [r for r in csv.reader(open(f"{sys.argv[1]}/bench_gpu.csv")) if r and r[0].endswith('_median')]
names = [r[0].replace('BM_GpuSoftStep/', '').replace('_median', '') for r in rows]
ms = [float(r[2]) for r in rows]
plt.figure(figsize=(10, 0.3 * len(rows) + 1.5))
plt.barh(names, ms)
plt.xlabel('ms (median of 3)')
plt.tight_layout()
plt.savefig(f"{sys.argv[1]}/bench.png", dpi=90)
EOF
  fi
fi

# ---- profiles of the sweep kernel (Nsight Compute; where the runtime lets it read the counters) ------------------
if [ $BUILD_OK = 1 ] && [ $((DEADLINE - SECONDS)) -lt 40 ]; then
  say ""
  say "ncu: skipped (the run's budget is spent)"
elif [ $BUILD_OK = 1 ]; then
  phase "ncu: the sweep kernel at 700k tets (default lanes per vertex, float and double)"
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  if [ -n "$NCU" ]; then
    : >"$OUT/ncu.txt"
    # The default kernel in float and double, and the float kernel reading the tet records and the incidence
    # records (gpu/tet_records.h).
    for bm in "BM_GpuSoftStep/size:1/iters:10/double:0/lanes:0/real_time" \
      "BM_GpuSoftStep/size:1/iters:10/double:1/lanes:0/real_time" \
      "BM_GpuSoftStepRecords/size:1/iters:120/double:0/lanes:8/blocks:0/records:2/absolute:0/real_time" \
      "BM_GpuSoftStepRecords/size:1/iters:120/double:0/lanes:8/blocks:0/records:1/absolute:0/real_time"; do
      vt 30 "$NCU" --clock-control none --kernel-name-base demangled -k 'regex:SweepTile' --launch-skip 8 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section SchedulerStats \
        "$BUILD/bin/bench_gpu" --benchmark_filter="$bm" --benchmark_min_time=0.01 >>"$OUT/ncu.txt" 2>&1
      say "ncu ($bm): rc $?"
    done
    grep -E 'SweepTile|Duration|Throughput|Hit Rate|Achieved Occupancy|Registers Per|Block Limit Reg|Stall|Warp Cycles Per Issued|Issued Warp' \
      "$OUT/ncu.txt" | head -90 | tee -a "$SUMMARY"
  else
    say "ncu: not found"
  fi
fi

phase "issue 16's targets (tests/gpu/targets.py: the best run of each kind against its goal)"
python3 tests/gpu/targets.py "$CSV" "$OUT/bench_gpu.csv" "$LOGS"/bench_*.csv 2>&1 | tee -a "$SUMMARY"

phase "one setting at a time (tests/gpu/compare_args.py: median-time ratios of runs that differ in one argument)"
python3 tests/gpu/compare_args.py "$LOGS"/bench_*.csv "$OUT/bench_gpu.csv" 2>&1 | tee -a "$SUMMARY"

phase "done"
say "total: $((SECONDS - T0)) s; $([ $FAILED = 0 ] && echo 'all checks that ran passed' || echo 'SOME CHECKS FAILED')"
for f in "$LOGS"/*; do
  echo "===== $(basename "$f") (last 150 lines)"
  tail -150 "$f"
done >"$OUT/logs.txt"
exit $FAILED
