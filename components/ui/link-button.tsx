import Link from "next/link";
import type { ComponentProps } from "react";
import { buttonClasses, type ButtonSize, type ButtonVariant } from "./button";

export interface LinkButtonProps extends ComponentProps<typeof Link> {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

/** A link that looks like a button: navigation stays a link (works without JavaScript, opens in a new tab). */
export function LinkButton({ variant = "secondary", size, className, ...rest }: LinkButtonProps) {
  return <Link {...rest} className={buttonClasses({ variant, size, className })} />;
}
