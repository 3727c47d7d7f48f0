"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { PublishEvalPackRequest } from "@/lib/api/schemas/evals";
import { formAction, type FormState } from "../action";

const blankIsAbsent = (v: string) => (v.trim() === "" ? undefined : v.trim());
const int = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** The builder's fields: the pack's settings, and its items as JSON (the request's items array). */
const BuilderForm = z.object({
  slug: z.string().trim(),
  title: z.string().trim(),
  description: z.string().trim(),
  vertical: z.string().default("").transform(blankIsAbsent),
  priceUsdc: z.string().default("").transform(blankIsAbsent),
  passPercent: z.string().transform(int),
  timeLimitMinutes: z.string().transform(int),
  itemsPerAttempt: z.string().default("").transform(blankIsAbsent).transform(int),
  validityDays: z.string().default("").transform(blankIsAbsent).transform(int),
  items: z.string(),
});

const KEEP = [
  "slug",
  "title",
  "description",
  "vertical",
  "priceUsdc",
  "passPercent",
  "timeLimitMinutes",
  "itemsPerAttempt",
  "validityDays",
  "items",
] as const;

/**
 * POST /v1/evals/packs from the dashboard's builder. The request is checked against the API's own
 * schema (lib/api) before it is sent; the service adds the rules beside the data (the price range,
 * each item's grading key, the JSON Schema subset). The pack then waits for the operator's approval.
 */
export const publishPackAction = formAction(
  BuilderForm,
  { signIn: () => "/packs/new", human: true, keep: KEEP },
  async (input, { api }): Promise<FormState> => {
    let items: unknown;
    try {
      items = JSON.parse(input.items);
    } catch {
      return { fields: { items: ["The items are not valid JSON: check the brackets, commas and quotes."] } };
    }
    const body = PublishEvalPackRequest.safeParse({
      slug: input.slug,
      title: input.title,
      description: input.description,
      ...(input.vertical ? { vertical: input.vertical } : {}),
      priceUsdc: input.priceUsdc ?? null,
      passPercent: input.passPercent,
      timeLimitSeconds: input.timeLimitMinutes === undefined ? undefined : input.timeLimitMinutes * 60,
      ...(input.itemsPerAttempt !== undefined ? { itemsPerAttempt: input.itemsPerAttempt } : {}),
      ...(input.validityDays !== undefined ? { validityDays: input.validityDays } : {}),
      items,
    });
    if (!body.success) return { error: body.error.issues.map((i) => `${i.path.join(".") || "pack"}: ${i.message}`) };
    const { data } = await api.publishEvalPack({ body: body.data });
    revalidatePath("/packs/mine");
    redirect(`/packs/${data.id}`);
  },
);
