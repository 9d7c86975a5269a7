// The gateway's client: gRPC-Web (binary) on the page's own origin, the player's token in
// every call. gRPC-Web answers a refusal with HTTP 200 and the status in trailers, so a
// refused action shows on the page, not as a failed request in the console.
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Gateway } from "./gen/croupier/gateway/v1/gateway_pb";

export type GatewayClient = Client<typeof Gateway>;

export function gatewayClient(token: string): GatewayClient {
  const bearer: Interceptor = (next) => async (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };
  const transport = createGrpcWebTransport({ baseUrl: location.origin, interceptors: [bearer] });
  return createClient(Gateway, transport);
}

/** The token's subject (the player), read without checking: the gateway checks it. */
export function playerOf(token: string): string | null {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(payload)) as { sub?: unknown };
    return typeof claims.sub === "string" ? claims.sub : null;
  } catch {
    return null;
  }
}
