import type { ReactNode } from "react";
import type { ApiErrorBody } from "@/lib/api/schemas/errors";
import { cn } from "./cn";

export type AlertTone = "error" | "warning" | "info" | "success";

const TONES: Record<AlertTone, { box: string; icon: string; path: string }> = {
  error: {
    box: "border-red-200 bg-red-50 text-red-900 dark:border-red-500/30 dark:bg-red-500/10 dark:text-red-200",
    icon: "text-red-500 dark:text-red-400",
    path: "M12 9v4m0 4h.01M10.29 3.86 1.82 18a2 2 0 0 0 1.71 3h16.94a2 2 0 0 0 1.71-3L13.71 3.86a2 2 0 0 0-3.42 0Z",
  },
  warning: {
    box: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-500/30 dark:bg-amber-500/10 dark:text-amber-200",
    icon: "text-amber-500 dark:text-amber-400",
    path: "M12 9v4m0 4h.01M10.29 3.86 1.82 18a2 2 0 0 0 1.71 3h16.94a2 2 0 0 0 1.71-3L13.71 3.86a2 2 0 0 0-3.42 0Z",
  },
  info: {
    box: "border-blue-200 bg-blue-50 text-blue-900 dark:border-blue-500/30 dark:bg-blue-500/10 dark:text-blue-200",
    icon: "text-blue-500 dark:text-blue-400",
    path: "M12 16v-4m0-4h.01M22 12a10 10 0 1 1-20 0 10 10 0 0 1 20 0Z",
  },
  success: {
    box: "border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-500/30 dark:bg-emerald-500/10 dark:text-emerald-200",
    icon: "text-emerald-500 dark:text-emerald-400",
    path: "m9 12 2 2 4-4m7 2a10 10 0 1 1-20 0 10 10 0 0 1 20 0Z",
  },
};

/** What an alert can show for a failure: the service's envelope, an ApiError (which carries it) or a message. */
export type AlertError = ApiErrorBody | { body: ApiErrorBody } | Error | string;

export interface DescribedError {
  title: string;
  messages: string[];
  code?: string;
  statusCode?: number;
}

function isEnvelope(value: unknown): value is ApiErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ApiErrorBody).statusCode === "number" &&
    typeof (value as ApiErrorBody).message === "string"
  );
}

/** Turns any failure into a title and a list of readable messages. */
export function describeError(error: AlertError): DescribedError {
  if (typeof error === "string") return { title: "Something went wrong", messages: [error] };
  const body = isEnvelope(error) ? error : "body" in error && isEnvelope(error.body) ? error.body : null;
  if (body) {
    const messages = (body.messages ?? [body.message]).map(String).filter(Boolean);
    return { title: titleFor(body), messages, code: body.code, statusCode: body.statusCode };
  }
  return { title: "Something went wrong", messages: [(error as Error).message || "Unknown error"] };
}

function titleFor(body: ApiErrorBody): string {
  switch (body.statusCode) {
    case 400:
      return (body.messages?.length ?? 0) > 1 ? "Please fix these problems" : "Please check your input";
    case 401:
      return "Please sign in";
    case 403:
      return "Not allowed";
    case 404:
      return "Not found";
    case 409:
      return "That conflicts with the current state";
    case 429:
      return "Too many requests: please wait a moment";
    default:
      return body.statusCode >= 500 ? "The service had a problem" : body.error || "Request failed";
  }
}

/** "box" (the default): a bordered notice; "inline": the same icon and colour without the box, for a line inside a form. */
export type AlertVariant = "box" | "inline";

const INLINE_TEXT: Record<AlertTone, string> = {
  error: "text-red-700 dark:text-red-400",
  warning: "text-amber-800 dark:text-amber-300",
  info: "text-zinc-700 dark:text-zinc-300",
  success: "text-emerald-700 dark:text-emerald-400",
};

export interface AlertProps {
  tone?: AlertTone;
  variant?: AlertVariant;
  /** The role the notice is announced with; by default "alert" for errors and "status" for the other tones. */
  role?: "alert" | "status";
  /** For aria-describedby of the control the notice is about. */
  id?: string;
  "data-testid"?: string;
  title?: ReactNode;
  /** Shown as the alert's content (and title, unless one is given); implies tone "error". */
  error?: AlertError | null;
  children?: ReactNode;
  className?: string;
}

/**
 * A message box. Errors are announced immediately (role="alert"); other tones politely
 * (role="status"), unless `role` says otherwise. With `error`, renders the service's error envelope readably: its messages as
 * a list, its code and status in small print for support requests.
 */
export function Alert({
  tone,
  variant = "box",
  role,
  id,
  "data-testid": testId,
  title,
  error,
  children,
  className,
}: AlertProps) {
  const described = error ? describeError(error) : null;
  const t = tone ?? (described ? "error" : "info");
  const style = TONES[t];
  const heading = title ?? described?.title;
  const inline = variant === "inline";
  return (
    <div
      id={id}
      data-testid={testId}
      role={role ?? (t === "error" ? "alert" : "status")}
      className={cn(
        inline ? cn("flex gap-1.5 text-sm", INLINE_TEXT[t]) : cn("flex gap-3 rounded-lg border p-4 text-sm", style.box),
        className,
      )}
    >
      <svg
        className={cn("shrink-0", inline ? "mt-0.5 size-4" : "mt-0.5 size-5", style.icon)}
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
      >
        <path d={style.path} />
      </svg>
      <div className="min-w-0 flex-1 space-y-1">
        {heading ? <p className="font-semibold">{heading}</p> : null}
        {described && described.messages.length ? (
          described.messages.length === 1 ? (
            <p className="break-words">{described.messages[0]}</p>
          ) : (
            <ul className="list-disc space-y-0.5 pl-5">
              {described.messages.map((m, i) => (
                <li key={i} className="break-words">
                  {m}
                </li>
              ))}
            </ul>
          )
        ) : null}
        {children ? <div className="break-words">{children}</div> : null}
        {described?.code || described?.statusCode ? (
          <p className="font-mono text-xs opacity-70">
            {[described.code, described.statusCode ? `HTTP ${described.statusCode}` : null].filter(Boolean).join(" · ")}
          </p>
        ) : null}
      </div>
    </div>
  );
}
