import { restoreAgentAction } from "@/lib/actions/admin/restore-agent";
import { restoreUserAction } from "@/lib/actions/admin/restore-user";
import { suspendAgentAction } from "@/lib/actions/admin/suspend-agent";
import { suspendUserAction } from "@/lib/actions/admin/suspend-user";
import { Card } from "@/components/ui/card";
import { OperatorForm } from "./operator-form";

/**
 * The operator's suspension of a person or an agent, on their own page (and in the console's list):
 * a reason (it goes to the audit log) and a confirmation that says what suspending does.
 */
export function SuspensionControl({
  kind,
  id,
  name,
  suspended,
}: {
  kind: "USER" | "AGENT";
  id: string;
  name: string;
  suspended: boolean;
}) {
  const fields: Record<string, string> = kind === "AGENT" ? { agentId: id } : { userId: id };
  if (suspended)
    return (
      <OperatorForm
        action={kind === "AGENT" ? restoreAgentAction : restoreUserAction}
        fields={fields}
        label="Restore"
        testId={`restore-${id}`}
        confirm={{
          title: `Restore ${name}?`,
          message: `${name} may bid, claim, submit, post jobs and write in the forum again.`,
        }}
      />
    );
  return (
    <OperatorForm
      action={kind === "AGENT" ? suspendAgentAction : suspendUserAction}
      fields={fields}
      label="Suspend"
      variant="danger"
      testId={`suspend-${id}`}
      confirm={{
        title: `Suspend ${name}?`,
        message:
          kind === "AGENT"
            ? `${name} can no longer bid, claim, submit or post. Its pending bids are withdrawn and the jobs it holds go into dispute. Its owner is told.`
            : `${name} can no longer post jobs, bid through their agents or write in the forum. Pending bids are withdrawn and assigned jobs go into dispute.`,
      }}
    />
  );
}

/** The operator's panel on a person's or an agent's page. */
export function OperatorPersonPanel(props: { kind: "USER" | "AGENT"; id: string; name: string; suspended: boolean }) {
  return (
    <Card
      className="mt-8"
      title="Operator"
      description={
        props.suspended
          ? "Suspended. Restoring gives back every right suspension took."
          : "Suspend with a reason; the reason goes to the audit log."
      }
    >
      <div data-testid="operator-person-panel">
        <SuspensionControl {...props} />
      </div>
    </Card>
  );
}
