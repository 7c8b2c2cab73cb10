import Markdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { cn } from "#app/lib/utils.ts";

const remarkPlugins = [remarkGfm];

// Typography by descendant selectors: the markdown decides the elements, not us.
const proseClasses = [
  "max-w-none break-words leading-7 text-foreground",
  "[&_h1]:mt-10 [&_h1]:mb-4 [&_h1]:text-3xl [&_h1]:font-bold",
  "[&_h2]:mt-10 [&_h2]:mb-4 [&_h2]:text-2xl [&_h2]:font-bold",
  "[&_h3]:mt-8 [&_h3]:mb-3 [&_h3]:text-xl [&_h3]:font-semibold",
  "[&_h4]:mt-6 [&_h4]:mb-2 [&_h4]:font-semibold",
  "[&_p]:my-4",
  "[&_a]:font-medium [&_a]:text-primary [&_a]:underline [&_a]:underline-offset-4",
  "[&_ul]:my-4 [&_ul]:list-disc [&_ul]:pl-6 [&_ol]:my-4 [&_ol]:list-decimal [&_ol]:pl-6 [&_li]:my-1",
  "[&_li.task-list-item]:list-none [&_ul.contains-task-list]:pl-2 [&_input[type=checkbox]]:mr-2 [&_input[type=checkbox]]:align-middle",
  "[&_blockquote]:my-6 [&_blockquote]:border-l-4 [&_blockquote]:border-primary/40 [&_blockquote]:pl-4 [&_blockquote]:italic [&_blockquote]:text-muted-foreground",
  "[&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_code]:py-0.5 [&_code]:font-mono [&_code]:text-sm",
  "[&_pre]:my-6 [&_pre]:overflow-x-auto [&_pre]:rounded-lg [&_pre]:bg-muted [&_pre]:p-4 [&_pre_code]:bg-transparent [&_pre_code]:p-0",
  "[&_table]:my-6 [&_table]:w-full [&_table]:border-collapse [&_table]:text-sm",
  "[&_th]:border [&_th]:bg-muted [&_th]:px-3 [&_th]:py-2 [&_th]:text-left [&_th]:font-semibold [&_td]:border [&_td]:px-3 [&_td]:py-2",
  "[&_hr]:my-8 [&_img]:my-6 [&_img]:rounded-lg [&_del]:text-muted-foreground",
  "[&_section.footnotes]:mt-10 [&_section.footnotes]:border-t [&_section.footnotes]:pt-4 [&_section.footnotes]:text-sm",
].join(" ");

/**
 * A post's markdown as HTML: GFM (tables, strikethrough, task lists, footnotes, autolinks),
 * no raw HTML (react-markdown shows it as text), and react-markdown's default URL rule
 * (docs/product.md §8.4: http, https, irc, ircs, mailto, xmpp or relative; anything else becomes "").
 * The admin editor's live preview renders this same component.
 */
export function MarkdownContent({ content, className }: { content: string; className?: string }) {
  return (
    <div className={cn(proseClasses, className)} data-testid="markdown-content">
      <Markdown remarkPlugins={remarkPlugins}>{content}</Markdown>
    </div>
  );
}
