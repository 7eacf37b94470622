#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (munged, slurmctld, slurmd; no systemd needed) for the
# sweep test (crates/cli/tests/slurm.rs), and prints the SLURM_CONF to export. Idempotent: a cluster this
# script started and that still answers is left running. Debian's slurm-wlm (scripts/dev/setup.sh
# installs it). Everything lives under ~/.cache/wmlab/slurm: config, state, spool and logs.
#   scripts/dev/slurm.sh          start (or find) it; prints the path of its slurm.conf
#   scripts/dev/slurm.sh stop     stop the daemons this script started
set -euo pipefail
dir="${WMLAB_SLURM_DIR:-$HOME/.cache/wmlab/slurm}"
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

stop() {
  for p in slurmd slurmctld; do
    [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
    rm -f "$dir/$p.pid"
  done
}
if [ "${1:-}" = stop ]; then stop; exit 0; fi

for b in sbatch slurmctld slurmd munged; do
  command -v "$b" >/dev/null || { echo "slurm.sh: $b is missing (apt-get install slurm-wlm)" >&2; exit 1; }
done

if [ -f "$conf" ] && timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
  echo "$conf"
  exit 0
fi
stop
mkdir -p "$dir/state" "$dir/spool"

# munge: its key comes with Debian's package; run the daemon as root unless one already answers.
if ! munge -n </dev/null >/dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
  munged --force >/dev/null 2>&1 || munged >/dev/null 2>&1
  for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
fi

cpus="$(nproc)"
mem="$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))"
cat > "$conf" <<EOF
# Written by scripts/dev/slurm.sh: a one-node cluster for WM Lab's tests.
ClusterName=wmlab
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${WMLAB_SLURMCTLD_PORT:-6817}
SlurmdPort=${WMLAB_SLURMD_PORT:-6818}
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -c -i >/dev/null 2>&1
slurmd -N localhost >/dev/null 2>&1
for _ in $(seq 100); do
  if timeout 5 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "$conf"
    exit 0
  fi
  sleep 0.3
done
echo "slurm.sh: the cluster did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
