/**
 * SMS through Twilio's Messages API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json,
 * form-encoded To, From, Body; HTTP basic auth with the account SID and auth token; 201 on
 * acceptance): https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource.
 * The base URL is configurable so a compatible provider (or a test peer) can stand in.
 * The token stays in this module: errors name the HTTP status and Twilio's error code only.
 */
import type { HostMessage, MessageTransport } from "./message.js";

export interface SmsSettings {
  readonly accountSid: string;
  readonly authToken: string;
  /** The sending number (E.164) or a Messaging Service SID ("MG…"). */
  readonly from: string;
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

const MAX_SMS_CHARS = 1_600;

export function smsTransport(settings: SmsSettings): MessageTransport {
  const base = (settings.baseUrl ?? "https://api.twilio.com").replace(/\/+$/, "");
  const doFetch = settings.fetch ?? fetch;
  const auth = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString("base64")}`;
  return {
    name: "sms",
    accepts: (m) => m.to.phone !== undefined,
    async send(m: HostMessage) {
      if (m.to.phone === undefined) throw new Error("the message has no phone recipient");
      const form = new URLSearchParams({
        To: m.to.phone,
        [settings.from.startsWith("MG") ? "MessagingServiceSid" : "From"]: settings.from,
        Body: m.text.slice(0, MAX_SMS_CHARS),
      });
      const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
      let res: Response;
      try {
        res = await doFetch(url, {
          method: "POST",
          headers: { authorization: auth, "content-type": "application/x-www-form-urlencoded" },
          body: form.toString(),
          signal: AbortSignal.timeout(settings.timeoutMs ?? 10_000),
        });
      } catch (error) {
        const name = (error as { name?: string }).name;
        throw new Error(
          `the SMS provider did not answer (${name === "TimeoutError" ? "timeout" : "network error"})`,
        );
      }
      if (res.status !== 201 && res.status !== 200) {
        const body = (await res.json().catch(() => ({}))) as { code?: unknown };
        const code = typeof body.code === "number" ? `, error ${body.code}` : "";
        throw new Error(`the SMS provider refused the message: HTTP ${res.status}${code}`);
      }
    },
  };
}
