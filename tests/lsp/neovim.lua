-- Neovim's built-in LSP client (0.7 or later) against `agc lsp`: opens $AGC_FILE, waits for
-- its diagnostics and writes them to $AGC_OUT, one per line: code, line, column, message.
local client = vim.lsp.start_client({
  name = "agc",
  cmd = { os.getenv("AGC_BIN"), "lsp" },
  root_dir = os.getenv("AGC_DIR"),
})
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("AGC_FILE")))
vim.lsp.buf_attach_client(0, client)
vim.wait(60000, function()
  return #vim.diagnostic.get(0) > 0
end, 50)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ""
  table.insert(out, string.format("%s %d %d %s", code, d.lnum, d.col, d.message))
end
vim.fn.writefile(out, os.getenv("AGC_OUT"))
vim.cmd("qa!")
