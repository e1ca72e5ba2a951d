import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as OTLP/JSON carries it, attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** A metric point's name and its attribute sets (one per data point). */
export interface ReceivedMetric {
  name: string;
  points: Record<string, unknown>[];
  /** The value of each point: a gauge's or sum's value, a histogram's count. */
  values: number[];
}

/**
 * A small OTLP/HTTP receiver (JSON encoding, what @opentelemetry's *-otlp-http exporters send):
 * POST /v1/traces and /v1/metrics, decoded into spans and metric points.
 */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Content types the exports came with (the test checks they are JSON). */
  contentTypes: Set<string>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

const plain = (value: AnyValue): unknown => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue;
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, "url" | "close"> = { spans: [], metrics: [], contentTypes: new Set() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      receiver.contentTypes.add(req.headers["content-type"] ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      if (req.url === "/v1/traces") {
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              receiver.spans.push({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? "", name: span.name, attributes: attributesOf(span.attributes) });
      } else if (req.url === "/v1/metrics") {
        for (const resource of body.resourceMetrics ?? [])
          for (const scope of resource.scopeMetrics ?? [])
            for (const metric of scope.metrics ?? []) {
              const points = metric.gauge?.dataPoints ?? metric.sum?.dataPoints ?? metric.histogram?.dataPoints ?? [];
              receiver.metrics.push({
                name: metric.name,
                points: points.map((p: { attributes?: KeyValue[] }) => attributesOf(p.attributes)),
                values: points.map((p: { asInt?: string | number; asDouble?: number; count?: string | number }) => Number(p.asInt ?? p.asDouble ?? p.count ?? 0)),
              });
            }
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { ...receiver, url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
