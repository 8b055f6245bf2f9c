/**
 * The gateway's request span (src/request-trace.ts): held by the request, not by AsyncLocalStorage,
 * exported like any other span, named after the contract route, and the same span everywhere: its
 * ids are on the request's log line and its context is what the service receives.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogDestination } from '@msp/http';
import { initTelemetry } from '@msp/telemetry';
import { waitFor } from '@msp/testing';
import { json, startHarness, type Echo, type Harness } from './helpers.js';

// Before the gateway is built: this process's tracer provider, with an exporter to read from.
const exporter = new InMemorySpanExporter();
initTelemetry({ service: 'gateway', exporter, undici: false });

const lines: Array<Record<string, unknown>> = [];
let h: Harness;
beforeAll(async () => {
  setLogDestination({ write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  h = await startHarness({ logger: true, env: { LOG_LEVEL: 'info' } });
});
afterAll(async () => {
  await h?.close();
  setLogDestination(undefined);
});

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

function spanOf(traceId: string): Promise<ReadableSpan> {
  return waitFor(
    () => exporter.getFinishedSpans().find((span) => span.spanContext().traceId === traceId && span.instrumentationScope.name.includes('request')),
    {
      timeoutMs: 3000,
      message: 'the request span exported',
    },
  );
}

describe("trace context: the gateway's request span", () => {
  it('is exported as the server span of the contract route, child of the client span, and is the parent the service sees', async () => {
    const requestId = 'trace-span-1';
    const response = await fetch(`${h.url}/api/tracks/7?x=1`, {
      headers: { traceparent: `00-${CLIENT_TRACE}-00f067aa0ba902b7-01`, 'x-request-id': requestId },
    });
    expect(response.status).toBe(200);
    const [, traceId, spanId] = TRACEPARENT.exec(String((await json<Echo>(response)).headers.traceparent)) ?? [];
    expect(traceId).toBe(CLIENT_TRACE);

    const span = await spanOf(CLIENT_TRACE);
    expect(span.spanContext().spanId).toBe(spanId);
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.name).toBe('GET /api/tracks/{trackId}');
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/api/tracks/7',
      'http.route': '/api/tracks/{trackId}',
      'http.response.status_code': 200,
    });

    // The one log line of the request names the same span.
    const line = await waitFor(() => lines.find((l) => l.requestId === requestId && l.msg === 'request completed'), { timeoutMs: 3000 });
    expect(line).toMatchObject({ service: 'gateway', traceId: CLIENT_TRACE, spanId });
  });

  it("records a service's 5xx as an error, and a gateway answer (404) as a span of its own trace", async () => {
    const failed = await fetch(`${h.url}/api/genres?fakeStatus=500`, { headers: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } });
    expect(failed.status).toBe(500);
    const span = await spanOf('a'.repeat(32));
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['http.response.status_code']).toBe(500);

    const requestId = 'trace-span-404';
    expect((await fetch(`${h.url}/api/nope`, { headers: { 'x-request-id': requestId } })).status).toBe(404);
    const line = await waitFor(() => lines.find((l) => l.requestId === requestId && l.msg === 'request completed'), { timeoutMs: 3000 });
    expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
    const notFound = await spanOf(String(line.traceId));
    expect(notFound.name).toBe('request');
    expect(notFound.parentSpanContext).toBeUndefined();
    expect(notFound.attributes['http.response.status_code']).toBe(404);
  });

  it('leaves the probes untraced', async () => {
    const before = exporter.getFinishedSpans().length;
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exporter.getFinishedSpans().length).toBe(before);
  });
});
