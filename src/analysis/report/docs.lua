-- The pages of docs/ on the site (analysis.report.docs): raw HTML in a page is shown as
-- text, never passed through (pandoc's gfm reader keeps it as raw HTML whatever its
-- extensions say).
function RawInline(el)
  return pandoc.Str(el.text)
end

function RawBlock(el)
  return pandoc.Plain({pandoc.Str(el.text)})
end
