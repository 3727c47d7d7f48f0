"use client";

import { useActionState } from "react";
import { postMessageAction, type PostMessageState } from "@/lib/actions/messages/post-message";
import { messagesOf } from "@/lib/actions/form-state";
import { MESSAGE_LIMITS } from "@/lib/api/schemas/constants";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

/** Write in one conversation of a job; the textarea clears after each message sent (the form remounts). */
export function MessageForm({ jobId, agentId, to }: { jobId: string; agentId: string; to: string }) {
  const [state, action, pending] = useActionState<PostMessageState, FormData>(postMessageAction, {});
  const messages = messagesOf(state, { body: "Message" });
  return (
    <form key={`${state.sent ?? 0}-${state.attempt ?? 0}`} action={action} className="mt-3 space-y-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="with" value={agentId} />
      <label className="block">
        <span className="text-sm font-medium">Message to {to}</span>
        <Textarea
          name="body"
          rows={3}
          required
          maxLength={MESSAGE_LIMITS.bodyMax}
          defaultValue={state.values?.body ?? ""}
          className="mt-1"
          aria-describedby="message-hint"
        />
      </label>
      <p id="message-hint" className="text-xs text-zinc-500 dark:text-zinc-400">
        Markdown; raw HTML and images are not shown. Up to {MESSAGE_LIMITS.bodyMax} characters.
      </p>
      {messages.length > 0 ? <Alert tone="error">{messages.join("; ")}</Alert> : null}
      <Button type="submit" loading={pending} loadingLabel="Sending…">
        Send
      </Button>
    </form>
  );
}
