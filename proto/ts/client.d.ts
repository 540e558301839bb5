import type { Client, Transport } from '@connectrpc/connect';
import type { GuestService } from './gen/glovebox/broker/v1/guest_pb.js';
import type { SessionService } from './gen/glovebox/broker/v1/session_pb.js';
import type { ComputerService } from './gen/glovebox/broker/v1/computer_pb.js';
import type { ControlService } from './gen/glovebox/broker/v1/control_pb.js';
import type { AuditService } from './gen/glovebox/broker/v1/audit_pb.js';
import type { McpService } from './gen/glovebox/broker/v1/mcp_pb.js';
import type { HandoffService } from './gen/glovebox/broker/v1/handoff_pb.js';
import type { ConsoleService } from './gen/glovebox/broker/v1/console_pb.js';

/** PEM files for a tcp:// broker (mutual TLS). */
export interface BrokerTLS {
  cert?: string;
  key?: string;
  ca?: string;
  serverName?: string;
}

/** The servers' message limit. */
export declare const MAX_MESSAGE_BYTES: number;
/** A gRPC (HTTP/2) transport to unix:///path or tcp://host:port. */
export declare function brokerTransport(uri: string, tls?: BrokerTLS): Transport;
/** Clients of every broker service over one transport. */
export declare function createBrokerClient(uri: string, tls?: BrokerTLS): {
  transport: Transport;
  guests: Client<typeof GuestService>;
  sessions: Client<typeof SessionService>;
  computer: Client<typeof ComputerService>;
  control: Client<typeof ControlService>;
  audit: Client<typeof AuditService>;
  mcp: Client<typeof McpService>;
  handoff: Client<typeof HandoffService>;
  console: Client<typeof ConsoleService>;
};
/** The glovebox ErrorInfo reason of an error from a broker call. */
export declare function reasonOf(err: unknown): string | undefined;

export * from './gen/glovebox/broker/v1/guest_pb.js';
export * from './gen/glovebox/broker/v1/session_pb.js';
export * from './gen/glovebox/broker/v1/computer_pb.js';
export * from './gen/glovebox/broker/v1/control_pb.js';
export * from './gen/glovebox/broker/v1/mcp_pb.js';
export * from './gen/glovebox/broker/v1/handoff_pb.js';
export * from './gen/glovebox/broker/v1/console_pb.js';
