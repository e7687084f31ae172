; Inno Setup script: the Windows installer of MediaDesk (Inno Setup 6.3 or later; docs/install.md).
;
; Build the one-folder app first (packaging/mediadesk.spec), then, from the repository root:
;   iscc /DAppVersion=0.1.0 packaging\windows\mediadesk.iss
; (the version is pyproject.toml's: `python packaging\targets.py --version` prints it; without /DAppVersion
; the default below is used, and tests/packaging/test_targets.py keeps that default equal to pyproject's).
; Input: dist\mediadesk\ (MediaDesk.exe, mediadesk-cli.exe, _internal\); /DDistDir=... to use another.
; Output: dist\MediaDesk-<version>-setup.exe.
;
; A per-user install: no administrator rights, into %LOCALAPPDATA%\Programs\MediaDesk; a Start-menu
; entry, an optional desktop icon, an uninstaller (Settings > Apps). The user's data folder
; (%LOCALAPPDATA%\mediadesk: database, settings, browser profiles, evidence, logs) is kept on uninstall
; unless the user ticks "also delete" in the uninstaller's first dialog. Setup speaks English and
; Simplified Chinese.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef DistDir
  #define DistDir SourcePath + "..\..\dist\mediadesk"
#endif
#define AppName "MediaDesk"
#define AppExe "MediaDesk.exe"
; platformdirs.user_data_dir("mediadesk", appauthor=False) on Windows (mediadesk/config/workspace.py)
#define DataDir "{localappdata}\mediadesk"

#if !FileExists(DistDir + "\" + AppExe)
  #error The app is not built: no MediaDesk.exe in DistDir. Run PyInstaller on packaging\mediadesk.spec first.
#endif

[Setup]
AppId={{6B1E4C9E-2F0A-4D7B-9C43-5A8E1D0F3B72}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=MediaDesk
VersionInfoVersion={#AppVersion}
PrivilegesRequired=lowest
DefaultDirName={localappdata}\Programs\MediaDesk
DisableProgramGroupPage=yes
UsePreviousAppDir=yes
Uninstallable=yes
UninstallDisplayName={#AppName}
UninstallDisplayIcon={app}\{#AppExe}
CloseApplications=yes
SetupIconFile={#SourcePath}..\mediadesk.ico
OutputDir={#SourcePath}..\..\dist
OutputBaseFilename=MediaDesk-{#AppVersion}-setup
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
; Qt 6 needs 64-bit Windows 10 or later
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
ShowLanguageDialog=auto
LanguageDetectionMethod=uilanguage

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"
; Simplified Chinese is not (yet) among the translations Inno Setup installs: put ChineseSimplified.isl
; (https://jrsoftware.org/files/istrans/) into Inno Setup's Languages folder or next to this script.
#if FileExists(CompilerPath + "Languages\ChineseSimplified.isl")
Name: "chinesesimplified"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"
#elif FileExists(SourcePath + "ChineseSimplified.isl")
Name: "chinesesimplified"; MessagesFile: "ChineseSimplified.isl"
#else
  #error ChineseSimplified.isl not found (see [Languages] in packaging\windows\mediadesk.iss)
#endif

[CustomMessages]
en.DataFormCaption=Uninstall MediaDesk
en.DataFormText=MediaDesk keeps your tasks, results, settings, browser logins and logs in%n%1%n%nThis folder is kept unless you tick the box below.
en.DeleteDataCheck=Also delete this data folder (this cannot be undone)
en.DeleteDataFailed=Some of %1 could not be deleted. Delete what is left by hand.
chinesesimplified.DataFormCaption=卸载 MediaDesk
chinesesimplified.DataFormText=MediaDesk 的任务、结果、设置、浏览器登录状态和日志保存在%n%1%n%n除非勾选下面的选项，此文件夹会被保留。
chinesesimplified.DeleteDataCheck=同时删除此数据文件夹（无法恢复）
chinesesimplified.DeleteDataFailed=%1 中有部分内容无法删除，请手动删除剩余内容。

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; the whole one-folder build: MediaDesk.exe (windowed), mediadesk-cli.exe (console), _internal\
Source: "{#DistDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
var
  DeleteData: Boolean;

function DataDir(): String;
begin
  Result := ExpandConstant('{#DataDir}');
end;

{ The uninstaller's first dialog: keep or delete the data folder (kept unless ticked). A silent
  uninstall (/SILENT, /VERYSILENT) keeps it. Cancel stops the uninstall. }
function InitializeUninstall(): Boolean;
var
  Form: TSetupForm;
  Info: TNewStaticText;
  Check: TNewCheckBox;
  OkButton, CancelButton: TNewButton;
begin
  Result := True;
  DeleteData := False;
  if UninstallSilent() or not DirExists(DataDir()) then
    Exit;
  Form := CreateCustomForm;
  try
    Form.Caption := CustomMessage('DataFormCaption');
    Form.BorderStyle := bsDialog;
    Form.ClientWidth := ScaleX(460);

    Info := TNewStaticText.Create(Form);
    Info.Parent := Form;
    Info.Left := ScaleX(12);
    Info.Top := ScaleY(12);
    Info.Width := Form.ClientWidth - ScaleX(24);
    Info.WordWrap := True;
    Info.Caption := FmtMessage(CustomMessage('DataFormText'), [DataDir()]);

    Check := TNewCheckBox.Create(Form);
    Check.Parent := Form;
    Check.Left := ScaleX(12);
    Check.Top := Info.Top + Info.Height + ScaleY(12);
    Check.Width := Form.ClientWidth - ScaleX(24);
    Check.Height := ScaleY(17);
    Check.Caption := CustomMessage('DeleteDataCheck');
    Check.Checked := False;

    CancelButton := TNewButton.Create(Form);
    CancelButton.Parent := Form;
    CancelButton.Width := ScaleX(75);
    CancelButton.Height := ScaleY(23);
    CancelButton.Left := Form.ClientWidth - ScaleX(12 + 75);
    CancelButton.Top := Check.Top + Check.Height + ScaleY(16);
    CancelButton.Caption := SetupMessage(msgButtonCancel);
    CancelButton.ModalResult := mrCancel;
    CancelButton.Cancel := True;

    OkButton := TNewButton.Create(Form);
    OkButton.Parent := Form;
    OkButton.Width := ScaleX(75);
    OkButton.Height := ScaleY(23);
    OkButton.Left := CancelButton.Left - ScaleX(8 + 75);
    OkButton.Top := CancelButton.Top;
    OkButton.Caption := SetupMessage(msgButtonOK);
    OkButton.ModalResult := mrOk;
    OkButton.Default := True;

    Form.ClientHeight := OkButton.Top + OkButton.Height + ScaleY(12);
    Form.ActiveControl := OkButton;
    Form.Center;
    Result := Form.ShowModal = mrOk;
    DeleteData := Result and Check.Checked;
  finally
    Form.Free;
  end;
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if (CurUninstallStep = usPostUninstall) and DeleteData then
    if not DelTree(DataDir(), True, True, True) then
      MsgBox(FmtMessage(CustomMessage('DeleteDataFailed'), [DataDir()]), mbError, MB_OK);
end;
