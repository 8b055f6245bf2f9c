import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Connects with endless reconnects: a NATS restart must never take a service down. */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: url.split(','),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    timeout: 5000,
  });
}
