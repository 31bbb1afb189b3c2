-- Pandoc Lua filter of the preview renderer: the Quarto features the pages use.
--
--   callouts      ::: {.callout-note collapse="true"} + "## Title"  -> <details>/<div>
--   fig-alt       ![caption](img){fig-alt="..."}                    -> <img alt="...">
--   figure ids    {#fig-name}                                       -> "Figure N: caption"
--   div figures   ::: {#fig-name} content, caption paragraph :::     -> a numbered figure
--   links         page.qmd / notebooks/x.ipynb (#anchor)            -> .html
--   tables        Markdown tables get Bootstrap's "table" class, as in Quarto

local figure_count = 0

local function html_of(inlines)
  return pandoc.write(pandoc.Pandoc({pandoc.Plain(inlines)}), "html")
end

local function callout_type(el)
  for _, cls in ipairs(el.classes) do
    local t = cls:match("^callout%-(%a+)$")
    if t then return t end
  end
  return nil
end

local function numbered_caption(inlines)
  figure_count = figure_count + 1
  local prefix = pandoc.List({pandoc.Str("Figure"), pandoc.Space(),
                              pandoc.Str(tostring(figure_count) .. ":"), pandoc.Space()})
  prefix:extend(inlines)
  return prefix
end

-- A Quarto "div figure": the last paragraph is the caption, the rest the content.
local function div_figure(el)
  local content = el.content
  local caption = {}
  if #content > 1 and content[#content].t == "Para" then
    caption = {pandoc.Plain(numbered_caption(content[#content].content))}
    content = content:clone()
    content:remove(#content)
  end
  return pandoc.Figure(content, caption, el.attr)
end

function Div(el)
  if el.identifier:match("^fig%-") then return div_figure(el) end
  local ctype = callout_type(el)
  if not ctype then return nil end
  local content = el.content
  local title
  if #content > 0 and content[1].t == "Header" then
    title = html_of(content[1].content)
    content:remove(1)
  elseif el.attributes["title"] then
    title = html_of(pandoc.read(el.attributes["title"], "markdown").blocks[1].content)
  else
    title = ctype:sub(1, 1):upper() .. ctype:sub(2)
  end
  local collapse = el.attributes["collapse"]
  local blocks = pandoc.List()
  if collapse == "true" or collapse == "false" then
    local open = collapse == "false" and " open" or ""
    blocks:insert(pandoc.RawBlock("html", '<details class="callout callout-' .. ctype .. '"'
      .. open .. '><summary class="callout-title">' .. title
      .. '</summary><div class="callout-body">'))
    blocks:extend(content)
    blocks:insert(pandoc.RawBlock("html", "</div></details>"))
  else
    blocks:insert(pandoc.RawBlock("html", '<div class="callout callout-' .. ctype
      .. '"><div class="callout-title">' .. title .. '</div><div class="callout-body">'))
    blocks:extend(content)
    blocks:insert(pandoc.RawBlock("html", "</div></div>"))
  end
  return blocks
end

function Image(el)
  local alt = el.attributes["fig-alt"]
  if alt then
    el.attributes["fig-alt"] = nil
    el.caption = {pandoc.Str(alt)}
  end
  return el
end

function Figure(fig)
  if fig.identifier:match("^fig%-") then
    local caption = fig.caption.long
    if #caption > 0 and caption[1].t == "Plain" then
      caption[1].content = numbered_caption(caption[1].content)
    end
  end
  return fig
end

local function rewrite(target)
  if target:match("^%a[%w+.-]*:") or target:match("^#") or target:match("^//") then
    return target
  end
  local path, rest = target:match("^([^#?]*)(.*)$")
  for _, ext in ipairs({"%.qmd$", "%.ipynb$"}) do
    if path:match(ext) then
      return path:gsub(ext, ".html") .. rest
    end
  end
  return target
end

function Link(el)
  el.target = rewrite(el.target)
  return el
end

function Table(el)
  if not el.classes:includes("table") then el.classes:insert("table") end
  return el
end
