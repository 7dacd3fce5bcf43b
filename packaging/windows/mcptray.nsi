; mcptray's per-user Windows installer, built on Linux by scripts/windows.sh
; with makensis (Debian's nsis):
;
;   makensis -DVERSION=0.1.0 -DVERSION4=0.1.0.0 -DSRC=dist/windows \
;     -DICON=…/mcptray.ico -DCLIENTS=…/clients.nsh -DOUTFILE=…-setup.exe mcptray.nsi
;
; It needs no administrator: mcptray goes to %LOCALAPPDATA%\Programs\mcptray,
; its Start menu entry and uninstaller entry are the user's. Installing a
; newer version over an older one replaces the programs in place, so the
; AI clients' entries, which name mcptray-stdio.exe by its path, keep
; working. The uninstaller keeps the user's database unless asked, and
; offers to take mcptray's entries out of the AI clients' config files.

; A 64-bit installer: the programs it installs are 64-bit alone, and
; Debian's Wine, which the checks run it under (make wine), runs 64-bit
; programs only.
Target amd64-unicode
SetCompressor /SOLID lzma
RequestExecutionLevel user

!include "MUI2.nsh"
!include "LogicLib.nsh"

!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\mcptray"

Name "mcptray ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\mcptray"
InstallDirRegKey HKCU "Software\mcptray" "InstallDir"
ShowInstDetails show
ShowUninstDetails show

VIProductVersion "${VERSION4}"
VIAddVersionKey "ProductName" "mcptray"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "mcptray installer"
VIAddVersionKey "CompanyName" "The mcptray authors"
VIAddVersionKey "LegalCopyright" "Copyright (c) 2026 The mcptray authors, MIT License"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\mcptray.exe"
!define MUI_FINISHPAGE_RUN_PARAMETERS "--open"
!define MUI_FINISHPAGE_RUN_TEXT "Start mcptray now"

!insertmacro MUI_PAGE_LICENSE "${SRC}\LICENSE.txt"
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; A running program cannot be overwritten on Windows, but it can be renamed:
; the running mcptray (and every mcptray-stdio.exe an AI client started)
; goes on from the old file, which is deleted at the next restart.
!macro Replace NAME
  ${If} ${FileExists} "$INSTDIR\${NAME}"
    Delete "$INSTDIR\${NAME}.old"
    Rename "$INSTDIR\${NAME}" "$INSTDIR\${NAME}.old"
    Delete /REBOOTOK "$INSTDIR\${NAME}.old"
  ${EndIf}
  File "${SRC}\${NAME}"
!macroend

Section "mcptray (required)" SecMain
  SectionIn RO
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  !insertmacro Replace "mcptray.exe"
  !insertmacro Replace "mcptray-stdio.exe"
  File "${SRC}\LICENSE.txt"
  File "${SRC}\README.md"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\mcptray.lnk" "$INSTDIR\mcptray.exe" "" "$INSTDIR\mcptray.exe" 0
  WriteRegStr HKCU "Software\mcptray" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "mcptray"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "The mcptray authors"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\mcptray.exe"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "URLInfoAbout" "https://github.com/mcptray/mcptray"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
SectionEnd

; The same shortcut the app's own "Start mcptray at login" switch makes
; (go-autostart: the Startup folder's mcptray.lnk), so the switch shows it.
Section /o "Start mcptray when I log in" SecLogin
  SetShellVarContext current
  CreateShortcut "$SMSTARTUP\mcptray.lnk" "$INSTDIR\mcptray.exe"
SectionEnd

LangString DESC_SecMain ${LANG_ENGLISH} "mcptray, its tray app and mcptray-stdio, the program AI clients start."
LangString DESC_SecLogin ${LANG_ENGLISH} "Start mcptray in the tray when you log in to Windows (the app's Settings can change this later)."
!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecMain} $(DESC_SecMain)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecLogin} $(DESC_SecLogin)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

; ------------------------------------------------------------ uninstall

; RemoveEntry takes mcptray's entry out of one client's config files,
; revoking its token; a client without one is left as it is.
!macro RemoveEntry CLIENT
  DetailPrint "Taking mcptray out of ${CLIENT}'s config"
  nsExec::ExecToLog '"$INSTDIR\mcptray.exe" config ${CLIENT} --remove --yes'
  Pop $0
!macroend

; First, while mcptray.exe is still there to do it.
Section "un.Take mcptray out of my AI clients' config files" SecUnEntries
  !include "${CLIENTS}"
SectionEnd

Section "un.mcptray" SecUnMain
  SectionIn RO
  SetShellVarContext current
  ; Ask a running mcptray to close; what still runs is removed at the next restart.
  nsExec::Exec 'taskkill /IM mcptray.exe'
  Pop $0
  Sleep 1000
  Delete /REBOOTOK "$INSTDIR\mcptray.exe"
  Delete /REBOOTOK "$INSTDIR\mcptray-stdio.exe"
  Delete "$INSTDIR\mcptray.exe.old"
  Delete "$INSTDIR\mcptray-stdio.exe.old"
  Delete "$INSTDIR\LICENSE.txt"
  Delete "$INSTDIR\README.md"
  Delete "$INSTDIR\uninstall.exe"
  RMDir /REBOOTOK "$INSTDIR"
  Delete "$SMPROGRAMS\mcptray.lnk"
  Delete "$SMSTARTUP\mcptray.lnk"
  DeleteRegKey HKCU "${UNINSTKEY}"
  DeleteRegKey HKCU "Software\mcptray"
SectionEnd

; Off unless ticked: the tools, prompts and tokens a person made stay.
Section /o "un.Delete my mcptray database and settings" SecUnData
  SetShellVarContext current
  RMDir /r "$APPDATA\mcptray"
SectionEnd

LangString DESC_SecUnEntries ${LANG_ENGLISH} "Remove the mcptray entry from Claude Desktop, Cursor, VS Code and the other AI clients, and revoke its tokens."
LangString DESC_SecUnMain ${LANG_ENGLISH} "Remove the mcptray programs, the Start menu entry and the start at login."
LangString DESC_SecUnData ${LANG_ENGLISH} "Also delete your tools, resources, prompts, tokens and activity log (%APPDATA%\mcptray). Leave this off to keep them for a later install."
!insertmacro MUI_UNFUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecUnEntries} $(DESC_SecUnEntries)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecUnMain} $(DESC_SecUnMain)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecUnData} $(DESC_SecUnData)
!insertmacro MUI_UNFUNCTION_DESCRIPTION_END
