import "server-only";
import { z } from "zod";
import type { ApiError } from "@/lib/api/errors";
import type { AssignmentTypedData } from "@/lib/api/schemas/bids";
import { Uuid } from "@/lib/api/schemas/common";
import { refusalOf, type FormState } from "../action";

// The state shared by the delivery pages' actions (submit, approve, dispute, override, evaluate).

export interface DeliveryActionState extends FormState {
  /** A probe's verdict carried by PROOF_CHECK_FAILED (422 at submission, 409 at approval). */
  proof?: { status: string | null; reason: string | null; httpStatus: number | null; finalUrl: string | null };
  /** Criteria that block approval (409 CRITERIA_NOT_MET). */
  failing?: string[];
  done?: string;
  /** An EscrowV2 slot without an agent: the EIP-712 Assign the payer's wallet signs before approving. */
  assignment?: AssignmentTypedData;
}

/** Every delivery form names its job. */
export const JobForm = z.object({ jobId: Uuid });

/** A refusal with what the delivery pages show of it: the probe's status and reason, the failing criteria. */
export function deliveryRefusal(error: ApiError): DeliveryActionState {
  const proof = error.is("PROOF_CHECK_FAILED")
    ? {
        status: error.extra.proofCheckStatus,
        reason: error.extra.proofCheckReason,
        httpStatus: error.extra.proofCheckHttpStatus,
        finalUrl: error.extra.proofCheckFinalUrl,
      }
    : undefined;
  const failing = error.is("CRITERIA_NOT_MET") ? error.extra.failing.map((f) => f.id) : undefined;
  return { ...refusalOf(error), proof, failing };
}

/** A 400 of the service is about the one field the form has: shown under it. */
export const refusalUnder =
  (field: string) =>
  (error: ApiError): DeliveryActionState =>
    error.status === 400 ? { fields: { [field]: error.messages } } : deliveryRefusal(error);
