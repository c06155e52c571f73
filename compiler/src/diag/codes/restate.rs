//! Running plans on Restate (`agc run --engine restate`, `agc restate register`): agc's own
//! codes. They concern the command and the server it talks to, not a document.

use super::CodeInfo;
use crate::diag::Severity::Error;

pub(super) static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "AGC360",
        origin: "agc",
        severity: Error,
        summary: "the Restate server could not be reached",
        explanation: "`agc run --engine restate` and `agc restate register` talk to a Restate \
server over plain HTTP: the ingress (default port 8080) for runs, the admin API (default port \
9070) for registration. This error means the connection failed (refused, timed out, a host \
without an address) or the URL is not an `http://` URL: agc links no TLS stack, so put a TLS \
terminating proxy in front of a remote server or use an SSH tunnel. Check that the server runs \
(`curl http://HOST:8080/restate/health`) and that the URL names the right port. Nothing was \
submitted; agc exits with status 2.",
    },
    CodeInfo {
        code: "AGC361",
        origin: "agc",
        severity: Error,
        summary: "Restate refused the run, or agc's services are not registered",
        explanation: "The server answered, but not as a run needs: submitting the run \
(`POST /restate/send/AgcRun/{run}/run`) or reading its status failed with an HTTP error. The \
most common cause is a server where no agc worker is registered yet (HTTP 404): start \
`agc-restate-worker` (or your own runner serving agc's services) and register it with \
`agc restate register http://WORKER:9080 --admin http://SERVER:9070`. With `--admin`, agc \
checks the registration before it submits anything. The message carries the server's own \
explanation. agc exits with status 2.",
    },
    CodeInfo {
        code: "AGC362",
        origin: "agc",
        severity: Error,
        summary: "a gate decision was refused",
        explanation: "`agc run --engine restate --resume RUN --decide GATE=OUTCOME` names a gate \
as a local resume does (its scope path, its plan id, or its local id when one instance \
awaits). The decision is refused when no gate of that name awaits a decision in the run (the \
message lists the gates that do), and when the gate was already decided: a gate's decision is \
a durable promise that can be resolved once, and agc's `decide` handler answers 409 for a \
second decision rather than silently accepting it (Restate itself would journal the second \
resolution as a no-op). Nothing changed in the run; agc exits with status 2.",
    },
    CodeInfo {
        code: "AGC363",
        origin: "agc",
        severity: Error,
        summary: "the run failed on Restate before it could start",
        explanation: "The worker refused the submitted run before the scheduler started: the \
plan does not read on the worker (a plan format its agc-runtime does not read: an older \
worker, or a plan written by a newer agc), the params do not fit, or the workflow key differs from the run id. These are \
terminal errors, so Restate does not retry them. Upgrade the worker to the agc version that \
built the plan, and check the message. A run that starts and then fails is not this error: \
its record says `failed`, and agc exits with status 1 as locally. This error exits with \
status 2.",
    },
    CodeInfo {
        code: "AGC364",
        origin: "agc",
        severity: Error,
        summary: "Restate refused to register the worker",
        explanation: "`agc restate register URL` asks the admin API (`POST /deployments`) to \
discover the worker at URL. Restate refuses when it cannot reach the worker (the URL must be \
reachable from the server, not only from your shell), when the worker does not speak \
Restate's protocol, or when a deployment already exists at the URL with different services. \
Re-registering the same URL needs `--force`, which is for development: runs in flight on the \
old deployment may break. To upgrade a worker while runs are in flight, start the new version \
at a new URL and register that (docs/restate.md). agc exits with status 1.",
    },
    CodeInfo {
        code: "AGC365",
        origin: "agc",
        severity: Error,
        summary: "the Restate engine options do not fit together",
        explanation: "`agc run --engine ENGINE` takes `local` (the default) or `restate`. \
`--engine restate` needs `--ingress URL`, the server's ingress, and takes the run id (not a \
run directory) with `--resume`; the server keeps the journal, so `--run-dir` and `--journal` \
are local-only and refused rather than ignored. `--decide` takes `GATE=approved` or \
`GATE=rejected`. agc exits with status 2.",
    },
];
