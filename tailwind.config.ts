import type { Config } from "tailwindcss";

// Tailwind 4 reads this file through the `@config` line in app/globals.css.
export default {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}", "./lib/markdown/**/*.{ts,tsx}"],
  darkMode: "media",
  theme: {
    extend: {
      colors: {
        brand: { 50: "#eef6ff", 100: "#d9eaff", 500: "#2f6fed", 600: "#1f57cc", 700: "#1a46a3" },
      },
    },
  },
} satisfies Config;
