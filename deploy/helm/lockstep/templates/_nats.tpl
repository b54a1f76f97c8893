{{/*
NATS least privilege: what each service publishes and subscribes to. Derived from the code:
every service ensures the event stream and the state bucket exist (packages/bus setup.ts: stream
info, then update or create), loads and follows the state bucket through a KV watch (an ordered
consumer on stream KV_lockstep-state-v1, with flow control; a kind that may hold nothing is told
apart from a slow one by listing its keys, which asks for the listing consumer's info: watch-start.ts),
and receives replies on _INBOX.>.
On top of that, only the watcher writes the state bucket ($KV.lockstep-state-v1.>), only the
lease-coordinator uses its replicas' wait-queue bucket (lockstep-lease-queue-v1), and each
service publishes only its own facts (packages/contracts/src/events.ts). Verified on a real
nats-server by packages/chart-test (nats.test.ts).
*/}}
{{- define "lockstep.natsPermissions" -}}
common:
  publish:
    - "$JS.API.INFO"
    - "$JS.API.STREAM.INFO.LOCKSTEP_EVENTS_V1"
    - "$JS.API.STREAM.CREATE.LOCKSTEP_EVENTS_V1"
    - "$JS.API.STREAM.UPDATE.LOCKSTEP_EVENTS_V1"
    - "$JS.API.STREAM.INFO.KV_lockstep-state-v1"
    - "$JS.API.STREAM.CREATE.KV_lockstep-state-v1"
    - "$JS.API.CONSUMER.CREATE.KV_lockstep-state-v1"
    - "$JS.API.CONSUMER.CREATE.KV_lockstep-state-v1.>"
    - "$JS.API.CONSUMER.DELETE.KV_lockstep-state-v1.>"
    - "$JS.API.CONSUMER.INFO.KV_lockstep-state-v1.>"
    - "$JS.FC.KV_lockstep-state-v1.>"
  subscribe:
    - "_INBOX.>"
services:
  watcher:
    publish:
      - "$KV.lockstep-state-v1.>"
      # A refused compare-and-set put reads the key's stored resourceVersion, and a replica that wins
      # the election reads the whole bucket with a pull consumer (bus/state-writer.ts).
      - "$JS.API.STREAM.MSG.GET.KV_lockstep-state-v1"
      - "$JS.API.CONSUMER.MSG.NEXT.KV_lockstep-state-v1.>"
  lease-coordinator:
    publish:
      # The replicas' shared wait queue (coordinator/shared-queue.ts): ensure the bucket, watch it,
      # and create, read, rewrite and delete its entries.
      - "$JS.API.STREAM.INFO.KV_lockstep-lease-queue-v1"
      - "$JS.API.STREAM.CREATE.KV_lockstep-lease-queue-v1"
      - "$JS.API.CONSUMER.CREATE.KV_lockstep-lease-queue-v1"
      - "$JS.API.CONSUMER.CREATE.KV_lockstep-lease-queue-v1.>"
      - "$JS.API.CONSUMER.DELETE.KV_lockstep-lease-queue-v1.>"
      - "$JS.API.CONSUMER.INFO.KV_lockstep-lease-queue-v1.>"
      - "$JS.API.DIRECT.GET.KV_lockstep-lease-queue-v1.>"
      - "$JS.FC.KV_lockstep-lease-queue-v1.>"
      - "$KV.lockstep-lease-queue-v1.>"
      - lockstep.v1.evt.lease.granted
      - lockstep.v1.evt.lease.denied
      - lockstep.v1.evt.lease.released
      - lockstep.v1.evt.lease.expired
      - lockstep.v1.evt.lease.preempted
      - lockstep.v1.evt.lease.preemption-withdrawn
      - lockstep.v1.evt.warning.raised
  skew-enforcer:
    publish:
      - lockstep.v1.evt.skew.evaluated
      - lockstep.v1.evt.upgradeable.changed
      - lockstep.v1.evt.update.completed
      # fact-log.ts reads back the newest fact of each kind it publishes.
      - "$JS.API.STREAM.MSG.GET.LOCKSTEP_EVENTS_V1"
  bootimage-updater:
    publish:
      - lockstep.v1.evt.bootimage.updated
      - lockstep.v1.evt.bootimage.skipped
      - lockstep.v1.evt.bootimage.update-failed
  status-aggregator:
    publish:
      - lockstep.v1.evt.insight.changed
{{- end }}

{{/* The nats-server `authorization` block: one user per service, passwords from the server's environment. */}}
{{- define "lockstep.natsAuthorization" -}}
{{- $p := fromYaml (include "lockstep.natsPermissions" .) -}}
{{- $prefix := .Values.global.nats.auth.userPrefix -}}
authorization {
  users = [
{{- range $name, $svc := $p.services }}
    {
      user: {{ printf "%s%s" $prefix $name | quote }}
      password: ${{ printf "LOCKSTEP_%s_NATS_PASSWORD" (upper (replace "-" "_" $name)) }}
      permissions: {
        publish: { allow: [{{ range $i, $s := concat $p.common.publish $svc.publish }}{{ if $i }}, {{ end }}{{ quote $s }}{{ end }}] }
        subscribe: { allow: [{{ range $i, $s := $p.common.subscribe }}{{ if $i }}, {{ end }}{{ quote $s }}{{ end }}] }
      }
    }
{{- end }}
  ]
}
{{- end }}
