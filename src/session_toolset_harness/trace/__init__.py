"""Trace validation: check a runtime's recorded requests and replies against the model.

- `logline`  - the JSON Lines format: one recorded request and its observed reply per line.
- `sections` - which SPEC.md section a reply of an op (or an error code) answers to.
- `complete` - complete mode: one expected world per partition, every reply compared.
- `partitions` - a run's partitions in bounded memory (the others spilled to a temporary file).
- `jobs`     - partitions checked in parallel worker processes.
- `partial`  - partial mode: solving for unrecorded catalog changes (`window` encodes a window of
  lines for Z3, `plan` the recorded requests it constrains); `partial_run` runs it per
  partition for ``--partial``.
- `record`   - writing such logs (``adapter/conform/explore --record``, tests, benchmarks).
- `report`   - the summary line, ``--json`` and ``--junit``.
- `cli`      - ``session-toolset trace``.
"""
