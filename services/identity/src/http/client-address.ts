/**
 * The client address every identity limit and session record uses: the gateway's signed
 * X-Client-Ip (the address it resolved from trusted proxies only), else the socket address
 * (packages/http gateway-assertion.ts). The one place identity names it.
 */
export { clientAddress } from '@msp/http';
