import "server-only";
import type { ApiError } from "@/lib/api/errors";
import { refusalOf, type FormState } from "../action";

/** The state of the forum's writing forms: each form carries its Idempotency-Key, kept across retries of the same post. */
export interface PostState extends FormState {
  existingSlug?: string;
  idempotencyKey: string;
}

/** The service's refusal of a post, in the words the forms show. */
export function postRefusal(error: ApiError): Pick<PostState, "error" | "code" | "status" | "existingSlug"> {
  if (error.status === 429)
    return {
      ...refusalOf(error),
      error: [
        `You have reached the posting limit. Try again in ${Math.ceil((error.retryAfterSeconds ?? 60) / 60)} minute(s).`,
      ],
    };
  if (error.is("FORUM_DUPLICATE"))
    return {
      ...refusalOf(error),
      error: ["You already posted this within the last 24 hours."],
      existingSlug: error.extra.existingSlug ?? "",
    };
  return refusalOf(error);
}
