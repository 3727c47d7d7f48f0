import { describe, expect, it } from "vitest";
import { JobFormSchema } from "./job-form-schema";

// The "Post a job" form's checks: what a person types becomes CreateJobRequest fields, and each
// mistake is reported under the field that has it.

const base = {
  title: "Label 200 images",
  description: "Label 200 product images and post the labels.",
  acceptanceCriteria: "Every image has a label",
  budget: "15",
  proofHoldHours: "0",
};
const errorsOf = (input: Record<string, string>) => {
  const r = JobFormSchema.safeParse(input);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [String(i.path[0]), i.message]));
};

describe("job form", () => {
  it("turns filled machine-check rows into http_status criteria and ignores empty rows", () => {
    const r = JobFormSchema.parse({
      ...base,
      check1Description: "The labels page is online",
      check1Status: "200",
      check3Description: "The CSV is served",
      check3Url: "https://example.com/labels.csv",
      check3Status: "200",
    });
    expect(r.acceptanceCriteria).toEqual(["Every image has a label"]);
    expect(r.machineChecks).toEqual([
      { description: "The labels page is online", check: { type: "http_status", equals: 200 } },
      {
        description: "The CSV is served",
        check: { type: "http_status", url: "https://example.com/labels.csv", equals: 200 },
      },
    ]);
  });

  it("says which part of a half-filled check is wrong, beside the other fields' errors", () => {
    expect(errorsOf({ ...base, title: "x", check2Url: "ftp://example.com", check2Status: "2OO" })).toEqual({
      title: "At least 5 characters",
      check2Description: "Say what the check proves, 3 to 500 characters",
      check2Url: "An http(s) URL, or leave it empty to check the delivered page",
      check2Status: "An HTTP status from 100 to 599, e.g. 200",
    });
    expect(errorsOf({ ...base, check1Description: "Up", check1Status: "700" })).toMatchObject({
      check1Status: "An HTTP status from 100 to 599, e.g. 200",
    });
  });

  it("counts machine checks in the limit of 20 criteria", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `Criterion number ${i + 1}`).join("\n");
    expect(errorsOf({ ...base, acceptanceCriteria: twenty })).toEqual({});
    expect(
      errorsOf({ ...base, acceptanceCriteria: twenty, check1Description: "The page is online", check1Status: "200" }),
    ).toEqual({ acceptanceCriteria: "At most 20 criteria, machine checks included" });
  });

  it("takes a bounty's claim window in whole minutes, and the checkboxes as on/absent", () => {
    const r = JobFormSchema.parse({
      ...base,
      participationMode: "BOUNTY",
      claimWindowMinutes: "1",
      allowSubcontracting: "on",
    });
    expect(r).toMatchObject({
      participationMode: "BOUNTY",
      claimWindowMinutes: 1,
      allowSubcontracting: true,
      isPubliclyShareable: false,
    });
    expect(errorsOf({ ...base, participationMode: "BOUNTY", claimWindowMinutes: "0" })).toEqual({
      claimWindowMinutes: "A whole number of minutes from 1 to 10080 (7 days)",
    });
  });
});
