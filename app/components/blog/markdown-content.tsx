import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";

/**
 * A post's markdown as the public post page shows it: GFM (tables, strikethrough, task
 * lists, footnotes, autolinks) and react-markdown's default URL transform, which keeps
 * only http, https, irc, ircs, mailto, xmpp and relative URLs (spec §5).
 */
export function MarkdownContent({ content }: { content: string }) {
  return (
    <div className="markdown-content space-y-4 leading-7 [&_a]:text-primary [&_a]:underline [&_blockquote]:border-l-4 [&_blockquote]:pl-4 [&_blockquote]:italic [&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_h1]:text-3xl [&_h1]:font-bold [&_h2]:text-2xl [&_h2]:font-bold [&_h3]:text-xl [&_h3]:font-semibold [&_img]:max-w-full [&_ol]:list-decimal [&_ol]:pl-6 [&_pre]:overflow-x-auto [&_pre]:rounded [&_pre]:bg-muted [&_pre]:p-4 [&_table]:w-full [&_table]:border-collapse [&_td]:border [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:px-2 [&_th]:py-1 [&_ul]:list-disc [&_ul]:pl-6">
      <ReactMarkdown remarkPlugins={[remarkGfm]}>{content}</ReactMarkdown>
    </div>
  );
}
